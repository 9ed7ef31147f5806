package shard

import (
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

func TestJoin(t *testing.T) {
	doc := &state.Doc{Source: "pages/2/10", Time: time.Unix(100, 0)}
	at := func(sec int64, src string) (time.Time, string) { return time.Unix(sec, 0), src }
	near := func(of string, sec int64, src string) stream.Decision {
		tm, s := at(sec, src)
		return stream.Decision{Verdict: stream.NearDuplicate, Of: of, OfTime: tm, OfSource: s, Cluster: uint64(sec)}
	}
	exact := near("e", 50, "pages/0/5")
	exact.Verdict = stream.ExactDuplicate
	unique := stream.Decision{Verdict: stream.Unique, Cluster: stream.ClusterOf(doc.Source)}
	f := func(name string, answers []stream.Decision, want stream.Decision) {
		t.Helper()
		got := join(doc, answers)
		if got.Verdict != want.Verdict || got.Of != want.Of || got.Cluster != want.Cluster || got.Replayed != want.Replayed {
			t.Errorf("%s: join = %+v, want %+v", name, got, want)
		}
	}
	f("all unique", []stream.Decision{unique, unique}, unique)
	f("one near", []stream.Decision{unique, near("a", 60, "pages/1/1")}, near("a", 60, "pages/1/1"))
	f("earliest time wins", []stream.Decision{near("b", 70, "pages/0/1"), near("a", 60, "pages/1/1")}, near("a", 60, "pages/1/1"))
	f("same time: partition breaks the tie", []stream.Decision{near("b", 60, "pages/3/1"), near("a", 60, "pages/1/9")}, near("a", 60, "pages/1/9"))
	f("same partition: offset numerically", []stream.Decision{near("b", 60, "pages/1/10"), near("a", 60, "pages/1/9")}, near("a", 60, "pages/1/9"))
	f("exact beats an earlier near", []stream.Decision{near("a", 10, "pages/1/1"), exact}, exact)
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
