package shard

import (
	"flag"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/state"
)

var balanceDocs = flag.Int("balance-docs", 20000, "TestShardBalance: generated pages to route (BENCHMARKS.md uses 1000000)")

// TestShardBalance routes the index keys of generated pages (20% near-copies,
// the default minhash) to S shards as the front does, and measures the shard
// balance: postings (keys routed) of the fullest shard over the mean, and the
// shards a page touches. Keys are hashes, so their residues mod S spread
// evenly: the fullest shard must stay within a few standard deviations of
// the mean (≤ 1.05 at S = 8, ≤ 1.10 at S = 64 with the default 20,000
// pages; go test -run TestShardBalance -balance-docs 1000000 -v for the
// figures in BENCHMARKS.md).
func TestShardBalance(t *testing.T) {
	t.Parallel() // with TestEveryMethodSharded: the package's two longest tests overlap
	cfg := lsh.Config{}
	cfg.EnsureDefaults()
	m, err := lsh.NewMethod(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{8, 16, 32, 64}
	postings := make([][]int64, len(sizes))
	touched := make([]int64, len(sizes))
	for i, s := range sizes {
		postings[i] = make([]int64, s)
	}
	g := gen.New(gen.Options{Seed: 11, CopyRate: 0.2})
	c := clean.New(clean.Options{})
	var sc lsh.Scratch
	var text, sketch []byte
	var keys []uint64
	for range *balanceDocs {
		text, _ = c.HTML(text[:0], []byte(g.Next().HTML))
		sketch, keys = m.Sketch(&sc, text, sketch[:0], keys[:0])
		d := state.Doc{Bands: keys, ContentHash: lsh.ContentHash(text)}
		for i, s := range sizes {
			parts := route(&d, s)
			touched[i] += int64(len(parts))
			for _, p := range parts {
				postings[i][p.shard] += int64(len(p.keys))
			}
		}
	}
	for i, s := range sizes {
		var sum, top int64
		for _, n := range postings[i] {
			sum, top = sum+n, max(top, n)
		}
		balance := float64(top) * float64(s) / float64(sum)
		t.Logf("S=%d: %d pages, %d postings, fullest shard / mean = %.4f, shards touched per page %.2f",
			s, *balanceDocs, sum, balance, float64(touched[i])/float64(*balanceDocs))
		limit := 1.05
		if s > 8 {
			limit = 1.10
		}
		if balance > limit {
			t.Errorf("S=%d: fullest shard holds %.4f× the mean postings, want ≤ %.2f", s, balance, limit)
		}
	}
}
