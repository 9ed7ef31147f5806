package lsh

import (
	"math"
)

// perm is one MinHash permutation, h(x) = top 32 bits of a*x + b.
type perm struct{ a, b uint64 }

// Sketcher computes shingles, MinHash signatures and band keys for one set of
// Params. It is immutable after NewSketcher and safe for concurrent use.
type Sketcher struct {
	p     Params
	perms []perm // len NumPerm
}

// NewSketcher returns a Sketcher for p, which must already have been through
// EnsureDefaults and Validate. It panics if p is invalid: that is a wiring
// bug, not a runtime condition.
func NewSketcher(p Params) *Sketcher {
	if err := p.Validate(); err != nil {
		panic("lsh: NewSketcher: " + err.Error())
	}
	perms := make([]perm, p.NumPerm)
	state := p.Seed
	for i := range perms {
		perms[i].a = splitmix64(&state) | 1
		perms[i].b = splitmix64(&state)
	}
	return &Sketcher{p: p, perms: perms}
}

// Params returns the parameters the Sketcher was built with.
func (s *Sketcher) Params() Params { return s.p }

// Shingles appends to dst the fingerprints (xxhash64) of every window of
// Shingle consecutive words of text and returns the extended slice. A text
// with fewer words than that (but at least one) yields one fingerprint of the
// whole text; empty text yields none. Repeated windows repeat their
// fingerprint. Words are the pieces between single spaces, so text that
// breaks the normalisation contract (double, leading or trailing spaces)
// still works but counts empty words.
func (s *Sketcher) Shingles(dst []uint64, text []byte) []uint64 {
	if len(text) == 0 {
		return dst
	}
	return appendWordShingles(dst, text, s.p.Shingle, 1)
}

// Signature writes the MinHash signature of the set of shingles into dst,
// resized to NumPerm (reusing its capacity), and returns it. An empty set
// gives a signature of all math.MaxUint32.
func (s *Sketcher) Signature(dst Signature, shingles []uint64) Signature {
	n := len(s.perms)
	if cap(dst) < n {
		dst = make(Signature, n)
	}
	dst = dst[:n]
	ps := s.perms
	i := 0
	for ; i+4 <= n; i += 4 {
		m := min4(shingles, (*[4]perm)(ps[i:i+4]))
		sig := (*[4]uint32)(dst[i : i+4])
		sig[0], sig[1], sig[2], sig[3] = uint32(m[0]>>32), uint32(m[1]>>32), uint32(m[2]>>32), uint32(m[3]>>32)
	}
	for ; i < n; i++ {
		p := ps[i]
		m := uint64(math.MaxUint64)
		for _, x := range shingles {
			m = min(m, x*p.a+p.b)
		}
		dst[i] = uint32(m >> 32)
	}
	return dst
}

// min4 returns, for four permutations at once, the minimum over xs of the
// full 64-bit value a*x+b. Four permutations share each load of x; the
// minima live in an array and are updated under a branch (rarely taken
// after the first few shingles), which on amd64 beats both the
// shingle-major loop and CMOV chains.
func min4(xs []uint64, q *[4]perm) [4]uint64 {
	m := [4]uint64{math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint64}
	a0, a1, a2, a3 := q[0].a, q[1].a, q[2].a, q[3].a
	for _, x := range xs {
		if v := x*a0 + q[0].b; v < m[0] {
			m[0] = v
		}
		if v := x*a1 + q[1].b; v < m[1] {
			m[1] = v
		}
		if v := x*a2 + q[2].b; v < m[2] {
			m[2] = v
		}
		if v := x*a3 + q[3].b; v < m[3] {
			m[3] = v
		}
	}
	return m
}

// BandKeys appends one 64-bit key per band to dst and returns the extended
// slice. Key j hashes the band index j and the Rows values
// sig[j*Rows:(j+1)*Rows], so equal keys at the same index mean the band
// agrees (up to 64-bit collisions). sig must have NumPerm values.
func (s *Sketcher) BandKeys(dst []uint64, sig Signature) []uint64 {
	return appendBandKeys(dst, sig, s.p.Bands, s.p.Rows)
}

// appendBandKeys is BandKeys for any signature, bands and rows (OPH
// signatures, super-shingles).
func appendBandKeys(dst []uint64, sig Signature, bands, rows int) []uint64 {
	for j := range bands {
		dst = append(dst, bandKey(j, sig[j*rows:(j+1)*rows]))
	}
	return dst
}

// bandKey chains a bijective mixer over the band index and the rows packed
// two to a word: two inputs of the same length that differ in one word
// cannot collide.
func bandKey(band int, rows []uint32) uint64 {
	h := mix64(uint64(band) + 0x9e3779b97f4a7c15)
	for ; len(rows) >= 2; rows = rows[2:] {
		h = mix64(h ^ (uint64(rows[0]) | uint64(rows[1])<<32))
	}
	if len(rows) == 1 {
		h = mix64(h ^ uint64(rows[0]))
	}
	return h
}

// mix64 is the splitmix64 / MurmurHash3 fmix64-style finaliser, a bijection
// on uint64.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// splitmix64 advances state and returns the next value of Vigna's
// splitmix64 generator.
func splitmix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	return mix64(*state)
}
