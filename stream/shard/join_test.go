package shard

import (
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

func TestJoin(t *testing.T) {
	doc := &state.Doc{Source: "pages/2/10", Time: time.Unix(100, 0)}
	near := func(of string, pos uint64) stream.Decision {
		return stream.Decision{Verdict: stream.NearDuplicate, Of: of, OfPos: pos, Cluster: pos}
	}
	exact := near("e", 50)
	exact.Verdict = stream.ExactDuplicate
	unique := stream.Decision{Verdict: stream.Unique, Cluster: stream.ClusterOf(doc.Source)}
	f := func(name string, answers []stream.Decision, want stream.Decision) {
		t.Helper()
		got := join(doc, answers)
		if got.Verdict != want.Verdict || got.Of != want.Of || got.OfPos != want.OfPos || got.Cluster != want.Cluster || got.Replayed != want.Replayed {
			t.Errorf("%s: join = %+v, want %+v", name, got, want)
		}
	}
	f("all unique", []stream.Decision{unique, unique}, unique)
	f("one near", []stream.Decision{unique, near("a", 60)}, near("a", 60))
	f("earliest in the sequence log wins", []stream.Decision{near("b", 70), near("a", 60)}, near("a", 60))
	f("positions compare as numbers", []stream.Decision{near("b", 1<<20|1), near("a", 1<<16|9)}, near("a", 1<<16|9))
	f("exact beats an earlier near", []stream.Decision{near("a", 10), exact}, exact)
	r := unique
	r.Replayed = true
	f("replayed only if every answer was", []stream.Decision{r, unique}, unique)
	f("all replayed", []stream.Decision{r, r}, r)
}

func TestRouteCoversEveryKeyOnce(t *testing.T) {
	d := &state.Doc{ContentHash: 77, Bands: []uint64{1, 2, 3, 10, 11, 1 << 62}}
	for _, shards := range []int{1, 2, 3, 8, 64} {
		seen := make(map[uint64]int)
		last := -1
		for _, r := range route(d, shards) {
			if r.shard <= last || r.shard >= shards {
				t.Errorf("S=%d: shard %d out of order or range", shards, r.shard)
			}
			last = r.shard
			for _, k := range r.keys {
				seen[k]++
				if shardOf(k, shards) != r.shard {
					t.Errorf("S=%d: key %d routed to %d, owned by %d", shards, k, r.shard, shardOf(k, shards))
				}
			}
		}
		if len(seen) != len(d.Bands)+1 || seen[exactKey(77)] != 1 {
			t.Errorf("S=%d: %d distinct keys routed, want %d with the exact key once", shards, len(seen), len(d.Bands)+1)
		}
	}
}

// TestProvisionalAnswers: a provisional answer counts only in a batch that
// holds its original (the front corrects its cluster there); a fixed
// replay keeps its cluster where a new answer takes its original's.
func TestProvisionalAnswers(t *testing.T) {
	docs := []state.Doc{{ID: "a", Source: "pages/0/1"}, {ID: "p", Source: "pages/0/2"}}
	b := &asked{docs: docs, done: make(chan struct{})}
	w := &waiting{doc: &docs[1], routes: []routed{{shard: 0}, {shard: 1}}, answers: make([]stream.Decision, 2),
		got: make([]bool, 2), fixed: true, left: 2, batch: b}
	b.waits, b.left = []*waiting{w}, 1
	dup := stream.Decision{Verdict: stream.ExactDuplicate, Of: "x", Cluster: 9}
	w.record(&answer{shard: 0, dec: dup, provisional: true})
	if w.got[0] {
		t.Error("a provisional answer whose original is not in the batch was taken")
	}
	dup.Of = "a"
	w.record(&answer{shard: 0, dec: dup, provisional: true})
	if !w.got[0] || w.fixed {
		t.Errorf("a provisional answer whose original is in the batch: taken %v, fixed %v; want taken, not fixed", w.got[0], w.fixed)
	}

	dec := []stream.Decision{{Verdict: stream.Unique, Cluster: 5}, {Verdict: stream.ExactDuplicate, Of: "a", Cluster: 9}}
	sameBatchClusters(docs, dec, func(int) bool { return false })
	if dec[1].Cluster != 5 {
		t.Errorf("a copy of a document of its batch has cluster %d, want its original's 5", dec[1].Cluster)
	}
	dec[1].Cluster = 9
	sameBatchClusters(docs, dec, func(i int) bool { return i == 1 })
	if dec[1].Cluster != 9 {
		t.Errorf("a fixed replay's cluster became %d, want the 9 it went out with", dec[1].Cluster)
	}
}
