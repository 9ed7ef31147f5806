package postings

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkLookupTouched looks up absent keys (as a new document's are) in
// an index of a million documents' postings (11 each, the default sketch's
// bands and content hash), one after another as the state's lookups do,
// touching each group of keys first (group=0: no Touch). ns/op is per key.
func BenchmarkLookupTouched(b *testing.B) {
	const docs, keysPerDoc = 1_000_000, 11
	x := New()
	rng := rand.New(rand.NewPCG(1, 2))
	for seq := uint64(1); seq <= docs; seq++ {
		for range keysPerDoc {
			x.Add(rng.Uint64(), seq)
		}
	}
	keys := make([]uint64, 1<<20)
	for i := range keys {
		keys[i] = rng.Uint64()
	}
	for _, group := range []int{0, keysPerDoc, 32, 880} {
		b.Run(fmt.Sprintf("group=%d", group), func(b *testing.B) {
			var dst []uint64
			for n := 0; n < b.N; {
				at := n % (len(keys) - 1024)
				g := keys[at : at+max(group, 1)]
				if group > 0 {
					x.Touch(g)
				}
				for _, k := range g {
					dst, _ = x.Lookup(dst[:0], k, 0, docs+1, 8)
				}
				n += len(g)
			}
		})
	}
}

// BenchmarkAddMillion adds a million documents' postings (11 random keys
// each) to an empty index, untouched: the cost of Add with atomic slots.
// Run it with -benchtime 1x: an op is the whole index (11e6 postings).
func BenchmarkAddMillion(b *testing.B) {
	for b.Loop() {
		x := New()
		rng := rand.New(rand.NewPCG(1, 2))
		for seq := uint64(1); seq <= 1_000_000; seq++ {
			for range 11 {
				x.Add(rng.Uint64(), seq)
			}
		}
	}
}
