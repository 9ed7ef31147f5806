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
	f := func(name string, answers []stream.Decision, home int, want stream.Decision) {
		t.Helper()
		got := join(doc, answers, home)
		if got.Verdict != want.Verdict || got.Of != want.Of || got.OfPos != want.OfPos || got.Cluster != want.Cluster || got.Replayed != want.Replayed {
			t.Errorf("%s: join = %+v, want %+v", name, got, want)
		}
	}
	f("all unique", []stream.Decision{unique, unique}, 0, unique)
	f("one near", []stream.Decision{unique, near("a", 60)}, 0, near("a", 60))
	f("earliest in the sequence log wins", []stream.Decision{near("b", 70), near("a", 60)}, 0, near("a", 60))
	f("positions compare as numbers", []stream.Decision{near("b", 1<<20|1), near("a", 1<<16|9)}, 0, near("a", 1<<16|9))
	f("exact beats an earlier near", []stream.Decision{near("a", 10), exact}, 0, exact)

	// A replay: its home answers with what it stored at the first append,
	// position 80; another shard decides it anew and may find a document
	// appended since.
	r := unique
	r.Replayed, r.Pos = true, 80
	replayed := func(d stream.Decision) stream.Decision { d.Replayed = true; return d }
	f("a replay is decided as at its first position", []stream.Decision{r, near("later", 90)}, 0, r)
	f("a match before the first position counts", []stream.Decision{near("b", 70), r}, 1, replayed(near("b", 70)))
	f("replayed only if its home's answer is", []stream.Decision{r, unique}, 1, unique)
	// The original's own shard answers with the cluster it holds now; the
	// replay's home with the one that went out, before a late final of the
	// original changed it.
	wentOut := replayed(near("a", 60))
	wentOut.Pos, wentOut.Cluster = 80, 7
	f("a replay keeps the cluster it went out with", []stream.Decision{near("a", 60), wentOut}, 1, wentOut)
	f("and a strictly earlier match still wins", []stream.Decision{near("b", 50), wentOut}, 1, replayed(near("b", 50)))

	// A shard taken over answers the first append again (its home's fresh
	// answer, position 80) while another answers a later append of the
	// same document, which found a document appended between the two.
	first := unique
	first.Pos = 80
	f("a fresh answer's position bounds the others' too", []stream.Decision{first, near("later", 90)}, 0, unique)
	f("and a match before it counts", []stream.Decision{first, near("b", 70)}, 0, near("b", 70))
}

func TestHomeIsOneShardForEveryCopy(t *testing.T) {
	for _, shards := range []int{1, 2, 3, 8, 64} {
		seen := make(map[int]bool)
		for h := range uint64(2000) {
			s := home(h, shards)
			if s < 0 || s >= shards {
				t.Fatalf("S=%d: home %d out of range", shards, s)
			}
			seen[s] = true
			d := state.Doc{ContentHash: h, Bands: []uint64{h * 7, h * 13}}
			if keys := indexKeys(&d); len(keys) != 3 || keys[2] != exactKey(h) || home(d.ContentHash, shards) != shardOf(exactKey(h), shards) {
				t.Fatalf("S=%d: keys %v of hash %d, want its bands and exact key, home the exact key's shard", shards, keys, h)
			}
		}
		if len(seen) != shards {
			t.Errorf("S=%d: 2,000 content hashes have %d homes, want every shard", shards, len(seen))
		}
	}
}

// TestProvisionalAnswers: a provisional answer counts only in a batch that
// holds its original (the front corrects its cluster there); a fixed
// replay keeps its cluster where a new answer takes its original's.
func TestProvisionalAnswers(t *testing.T) {
	docs := []state.Doc{{ID: "a", Source: "pages/0/1"}, {ID: "p", Source: "pages/0/2"}}
	b := &asked{docs: docs, done: make(chan struct{})}
	w := &waiting{doc: &docs[1], answers: make([]stream.Decision, 2),
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
