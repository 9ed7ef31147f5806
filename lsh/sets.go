package lsh

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Overlap holds the sizes that resemblance and containment are made of: the
// sizes of two sets A and B and of their intersection.
type Overlap struct {
	Inter, SizeA, SizeB int
}

// OverlapOf returns the overlap of two sets given as sorted slices without
// duplicates (see SortedSet).
func OverlapOf(a, b []uint64) Overlap {
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return Overlap{Inter: inter, SizeA: len(a), SizeB: len(b)}
}

// Resemblance returns |A∩B|/|A∪B|, 0 when both sets are empty.
func (o Overlap) Resemblance() float64 {
	return ratio(o.Inter, o.SizeA+o.SizeB-o.Inter)
}

// AinB returns the containment of A in B, |A∩B|/|A|, 0 when A is empty.
func (o Overlap) AinB() float64 { return ratio(o.Inter, o.SizeA) }

// BinA returns the containment of B in A, |A∩B|/|B|, 0 when B is empty.
func (o Overlap) BinA() float64 { return ratio(o.Inter, o.SizeB) }

// estimate is the Estimate of a set sample's overlap (modm, full), Near
// left false.
func (o Overlap) estimate() Estimate {
	return Estimate{Resemblance: o.Resemblance(), AinB: o.AinB(), BinA: o.BinA(), Containment: true, Distance: -1}
}

func ratio(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// SortedSet sorts fps in place, removes duplicates and returns the shortened
// slice, which aliases fps.
func SortedSet(fps []uint64) []uint64 {
	slices.Sort(fps)
	return slices.Compact(fps)
}

// appendSet appends the values of set as little-endian uint64s.
func appendSet(dst []byte, set []uint64) []byte {
	dst = slices.Grow(dst, 8*len(set))
	for _, v := range set {
		dst = binary.LittleEndian.AppendUint64(dst, v)
	}
	return dst
}

// setCount returns how many values an encoded set holds.
func setCount(b []byte) (int, error) {
	if len(b)%8 != 0 {
		return 0, fmt.Errorf("%w: set of %d bytes is not a multiple of 8", ErrSketch, len(b))
	}
	return len(b) / 8, nil
}

// checkSets checks that two encoded sets are whole values, strictly
// ascending.
func checkSets(a, b []byte) error {
	na, err := setCount(a)
	if err != nil {
		return err
	}
	nb, err := setCount(b)
	if err != nil {
		return err
	}
	if !ascending(a, na) || !ascending(b, nb) {
		return fmt.Errorf("%w: set not strictly ascending", ErrSketch)
	}
	return nil
}

// overlapBytes is OverlapOf on two encoded sets, checking that they are
// strictly ascending.
func overlapBytes(a, b []byte) (Overlap, error) {
	if err := checkSets(a, b); err != nil {
		return Overlap{}, err
	}
	na, nb := len(a)/8, len(b)/8
	inter := 0
	for i, j := 0, 0; i < na && j < nb; {
		x, y := le64(a, i), le64(b, j)
		switch {
		case x < y:
			i++
		case x > y:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return Overlap{Inter: inter, SizeA: na, SizeB: nb}, nil
}

func le64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }

// ascending reports whether the n encoded values of b strictly increase.
func ascending(b []byte, n int) bool {
	for i := 1; i < n; i++ {
		if le64(b, i-1) >= le64(b, i) {
			return false
		}
	}
	return true
}
