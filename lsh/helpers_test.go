package lsh

import (
	"math/rand/v2"
	"testing"
)

// testSketcher returns a Sketcher for p after defaults, failing the test if
// p is invalid.
func testSketcher(tb testing.TB, p Params) *Sketcher {
	tb.Helper()
	p.EnsureDefaults()
	if err := p.Validate(); err != nil {
		tb.Fatal(err)
	}
	return NewSketcher(p)
}

// randomText returns normalised text of at least n bytes: lowercase words of
// 2–9 letters separated by single spaces.
func randomText(r *rand.Rand, n int) []byte {
	var b []byte
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		for range 2 + r.IntN(8) {
			b = append(b, byte('a'+r.IntN(26)))
		}
	}
	return b
}

// setPair returns two fingerprint sets whose union has union elements and
// whose exact Jaccard resemblance is shared/union: shared common elements
// plus (union-shared)/2 private ones each. union-shared must be even.
func setPair(r *rand.Rand, shared, union int) (a, b []uint64) {
	private := (union - shared) / 2
	for range shared {
		x := r.Uint64()
		a, b = append(a, x), append(b, x)
	}
	for range private {
		a = append(a, r.Uint64())
		b = append(b, r.Uint64())
	}
	r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	return a, b
}
