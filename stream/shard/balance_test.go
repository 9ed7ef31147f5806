package shard

import (
	"flag"
	"math"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/state"
)

var balanceDocs = flag.Int("balance-docs", 20000, "TestShardBalance: generated pages to route (BENCHMARKS.md uses 1000000)")

// TestShardBalance stores generated pages (20% near-copies, the default
// minhash) in their home shards of S, as the shards do, and measures the
// balance: postings of the fullest shard over the mean. Homes are hashes of
// content hashes, so they spread as N pages thrown at random: the fullest
// shard must stay within four standard deviations of a page count's,
// √(S/N), of the mean (1.08 at S = 8, 1.23 at S = 64 with the default
// 20,000 pages; go test -run TestShardBalance -balance-docs 1000000 -v for
// the figures in BENCHMARKS.md).
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
			postings[i][home(d.ContentHash, s)] += int64(len(indexKeys(&d)))
		}
	}
	for i, s := range sizes {
		var sum, top int64
		for _, n := range postings[i] {
			sum, top = sum+n, max(top, n)
		}
		balance := float64(top) * float64(s) / float64(sum)
		t.Logf("S=%d: %d pages, %d postings, fullest shard / mean = %.4f", s, *balanceDocs, sum, balance)
		limit := 1 + 4*math.Sqrt(float64(s)/float64(*balanceDocs))
		if balance > limit {
			t.Errorf("S=%d: fullest shard holds %.4f× the mean postings, want ≤ %.2f", s, balance, limit)
		}
	}
}
