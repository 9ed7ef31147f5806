package lsh

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Signature is a MinHash signature: one minimum per permutation.
// math.MaxUint32 at a position means "empty" (no shingles).
type Signature []uint32

// Similarity estimates the Jaccard resemblance of the sets behind a and b as
// the fraction of positions where they agree. Positions where both are empty
// do not count as agreement, so two empty signatures have similarity 0. It
// returns 0 if the lengths differ or are zero.
func Similarity(a, b Signature) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	same := 0
	for i, v := range a {
		if v == b[i] && v != math.MaxUint32 {
			same++
		}
	}
	return float64(same) / float64(len(a))
}

// AppendBinary appends sig to dst as little-endian uint32s and returns the
// extended slice.
func (sig Signature) AppendBinary(dst []byte) []byte {
	for _, v := range sig {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return dst
}

// DecodeSignature decodes little-endian uint32s from b into dst, resized to
// len(b)/4 (reusing its capacity), and returns it. It is the inverse of
// AppendBinary and fails if len(b) is not a multiple of 4.
func DecodeSignature(dst Signature, b []byte) (Signature, error) {
	if len(b)%4 != 0 {
		return dst[:0], fmt.Errorf("lsh: signature length %d is not a multiple of 4", len(b))
	}
	n := len(b) / 4
	if cap(dst) < n {
		dst = make(Signature, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return dst, nil
}

// ContentHash fingerprints the whole normalised text with xxhash64; equal
// texts have equal hashes (the exact-duplicate key). For a text shorter than
// one shingle it equals the text's single shingle fingerprint.
func ContentHash(text []byte) uint64 {
	return xxhash.Sum64(text)
}

// Jaccard returns the exact resemblance |A∩B| / |A∪B| of the sets of
// fingerprints in a and b, which may be unsorted and contain duplicates. It
// does not modify a or b (it sorts copies). Two empty sets have resemblance
// 0, matching Similarity.
func Jaccard(a, b []uint64) float64 {
	return OverlapOf(SortedSet(slices.Clone(a)), SortedSet(slices.Clone(b))).Resemblance()
}
