package lsh

import (
	"encoding/binary"
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
// the difference on text). The signature is a quarter of 32-bit minima and half of 16-bit ones.
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
	var p Params
	var bits int
	switch m := m.(type) {
	case *minHashMethod:
		p, bits = m.s.p, m.codec.bits
	case *ophMethod:
		p, bits = m.p, m.codec.bits
	default:
		return nil, false
	}
	return &compactMethod{Method: m, n: p.NumPerm, bits: bits, threshold: p.Threshold,
		version: fmt.Sprintf("%s-b%dbit", m.Version(), CompactBits)}, true
}

type compactMethod struct {
	Method
	n         int
	bits      int // of the method's minima, 16 or 32
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
	low := func(v uint32, empty bool) byte {
		switch b := byte(v); {
		case empty:
			return compactEmpty
		case b == compactEmpty:
			return compactEmpty - 1
		default:
			return b
		}
	}
	// Accepted: the compact form itself; the method's own signature; and,
	// for 32-bit minima, the 16-bit compact form that builds before 8 bits
	// wrote to the probe log. Any other length is another configuration's.
	switch n := len(sketch); {
	case n == c.n:
		return append(dst, sketch...), nil
	case n == 2*c.n:
		for i := 0; i < len(sketch); i += 2 {
			v := binary.LittleEndian.Uint16(sketch[i:])
			dst = append(dst, low(uint32(v), v == 0xFFFF))
		}
	case n == 4*c.n && c.bits == 32:
		for i := 0; i < len(sketch); i += 4 {
			v := binary.LittleEndian.Uint32(sketch[i:])
			dst = append(dst, low(v, v == math.MaxUint32))
		}
	default:
		return dst, fmt.Errorf("%w: signature of %d bytes, want %d minima of 8 or %d bits", ErrSketch, len(sketch), c.n, c.bits)
	}
	return dst, nil
}

// Compare estimates the resemblance of two compact signatures: the share of
// positions where both hold the same byte, not empty, less the share
// expected by chance.
func (c *compactMethod) Compare(a, b []byte) (Estimate, error) {
	if len(a) != c.n || len(b) != c.n {
		return Estimate{Distance: -1}, fmt.Errorf("%w: compact signatures of %d and %d bytes, want %d", ErrSketch, len(a), len(b), c.n)
	}
	same := 0
	for i := range a {
		if a[i] == b[i] && a[i] != compactEmpty {
			same++
		}
	}
	r := max((float64(same)/float64(c.n)-compactChance)/(1-compactChance), 0)
	return Estimate{Resemblance: r, Distance: -1, Near: r >= c.threshold}, nil
}
