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
// R = (P − 2^-b) / (1 − 2^-b). At b = 16 the correction is 1.5·10⁻⁵ and the
// estimate differs from the full signature's by the chance agreements alone
// (TestCompactEstimates measures it on real text); the signature is half as
// long.
const CompactBits = 16

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

// CompactOf returns a Compactor for m's signatures — minhash and oph with
// sketch.bits 32, whose sketches are n 32-bit minima — or false for every
// other method (16-bit signatures are compact already) (and for
// sketch.verify or sketch.contain, whose sketches are composites): those
// are stored as they are. The Compactor's Compare takes two compact sketches,
// and its Version names the compact form, so a store of full signatures is
// not read as compact ones.
func CompactOf(m Method) (Compactor, bool) {
	var p Params
	switch m := m.(type) {
	case *minHashMethod:
		p = m.s.p
		if m.codec.bits != 32 {
			return nil, false // already as compact
		}
	case *ophMethod:
		p = m.p
		if m.codec.bits != 32 {
			return nil, false
		}
	default:
		return nil, false
	}
	return &compactMethod{Method: m, n: p.NumPerm, threshold: p.Threshold,
		version: fmt.Sprintf("%s-b%dbit", m.Version(), CompactBits)}, true
}

type compactMethod struct {
	Method
	n         int
	threshold float64
	version   string
}

func (c *compactMethod) Version() string { return c.version }

func (c *compactMethod) Compact(dst, sketch []byte) ([]byte, error) {
	if len(sketch) == 2*c.n {
		return append(dst, sketch...), nil
	}
	if len(sketch) != 4*c.n {
		return dst, fmt.Errorf("%w: signature of %d bytes, want %d", ErrSketch, len(sketch), 4*c.n)
	}
	for i := 0; i < len(sketch); i += 4 {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(binary.LittleEndian.Uint32(sketch[i:])))
	}
	return dst, nil
}

// Compare estimates the resemblance of two compact signatures.
func (c *compactMethod) Compare(a, b []byte) (Estimate, error) {
	if len(a) != 2*c.n || len(b) != 2*c.n {
		return Estimate{Distance: -1}, fmt.Errorf("%w: compact signatures of %d and %d bytes, want %d", ErrSketch, len(a), len(b), 2*c.n)
	}
	same := 0
	for i := 0; i < len(a); i += 2 {
		if binary.LittleEndian.Uint16(a[i:]) == binary.LittleEndian.Uint16(b[i:]) {
			same++
		}
	}
	chance := math.Ldexp(1, -CompactBits)
	r := max((float64(same)/float64(c.n)-chance)/(1-chance), 0)
	return Estimate{Resemblance: r, Distance: -1, Near: r >= c.threshold}, nil
}
