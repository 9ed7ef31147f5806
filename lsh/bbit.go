package lsh

import (
	"fmt"
	"math"
)

// CompactBits is how many low bits of each minimum a compact signature
// keeps: b-bit minwise hashing (Li and König, "b-Bit Minwise Hashing", 2010).
// Two documents' minima agree with probability R (their resemblance); their
// low b bits also agree by chance with probability about 2^-b when the
// minima differ, so the share P of agreeing positions estimates
// R = (P − 2^-b) / (1 − 2^-b) (compactChance: 2^-8 adjusted for the byte that
// marks an empty position). At b = 8 a pair of 128 minima gains about
// 128·(1 − R)/256 chance agreements (half a position for unrelated pages,
// a tenth at R = 0.8), which the correction removes on average. The
// estimate's variance is P(1 − P) / (k (1 − C)²) for k minima and chance
// agreement C, against R(1 − R) / k for whole minima (Li and König): at C ≈
// 2^-8 and R = 0.8, under one per cent more (TestCompactEstimates measures
// the difference on text). The signature is a quarter of 32-bit minima and
// half of 16-bit ones.
const CompactBits = 8

// Compactor is a Method whose encoded sketches have a compact form that
// Compare verifies: the sharded index stores that form with every copy of a
// document, one per shard its keys reach.
type Compactor interface {
	Method
	// Compact appends the compact form of an encoded sketch of the
	// underlying method to dst; a sketch already compact is appended as it
	// is.
	Compact(dst, sketch []byte) ([]byte, error)
}

// CompactOf returns a Compactor for m's signatures — minhash and oph, whose
// sketches are n minima of 16 or 32 bits (sketch.bits) — or false for every
// other method (and for sketch.verify or sketch.contain, whose sketches are
// composites): those are stored as they are. The Compactor's Compare takes
// two compact sketches, and its Version names the compact form, so a store
// of other signatures is not read as compact ones.
func CompactOf(m Method) (Compactor, bool) {
	var codec sigCodec
	var threshold float64
	switch m := m.(type) {
	case *minHashMethod:
		codec, threshold = m.codec, m.s.p.Threshold
	case *ophMethod:
		codec, threshold = m.codec, m.p.Threshold
	default:
		return nil, false
	}
	return &compactMethod{Method: m, codec: codec, threshold: threshold,
		version: fmt.Sprintf("%s-b%dbit", m.Version(), CompactBits)}, true
}

type compactMethod struct {
	Method
	codec     sigCodec // of the method's signatures
	threshold float64
	version   string
}

func (c *compactMethod) Version() string { return c.version }

// compactEmpty is the compact form of an empty position (no minimum: a
// minhash signature of a page without shingles). A minimum whose low byte is
// 0xFF is kept as 0xFE instead, so 0xFF means empty alone.
const compactEmpty = 0xFF

// compactChance is the probability that two different minima agree in
// compact form: the sum of the squared probabilities of the 255 non-empty
// byte values, 0xFE taking the share of 0xFF too (254·(1/256)² + (2/256)²).
const compactChance = 258.0 / 65536

func (c *compactMethod) Compact(dst, sketch []byte) ([]byte, error) {
	n := c.codec.n
	// Accepted: the compact form itself; the method's own signature; and,
	// for 32-bit minima, the 16-bit compact form that builds before 8 bits
	// wrote to the probe log. Any other length is another configuration's.
	from := c.codec
	switch len(sketch) {
	case n:
		return append(dst, sketch...), nil
	case 2 * n:
		from.bits = 16
	}
	if err := from.check(sketch); err != nil {
		return dst, err
	}
	for i := range n {
		switch v := from.at(sketch, i); {
		case v == math.MaxUint32:
			dst = append(dst, compactEmpty)
		case byte(v) == compactEmpty:
			dst = append(dst, compactEmpty-1)
		default:
			dst = append(dst, byte(v))
		}
	}
	return dst, nil
}

// Compare estimates the resemblance of two compact signatures: the share of
// positions where both hold the same byte, not empty, less the share
// expected by chance.
func (c *compactMethod) Compare(a, b []byte) (Estimate, error) {
	n := c.codec.n
	if len(a) != n || len(b) != n {
		return Estimate{Distance: -1}, fmt.Errorf("%w: compact signatures of %d and %d bytes, want %d", ErrSketch, len(a), len(b), n)
	}
	same := 0
	for i := range a {
		if a[i] == b[i] && a[i] != compactEmpty {
			same++
		}
	}
	r := max((float64(same)/float64(n)-compactChance)/(1-compactChance), 0)
	return Estimate{Resemblance: r, Distance: -1, Near: r >= c.threshold}, nil
}
