package lsh

import "math/bits"

// termCounts is an open-addressing hash table that collects the distinct
// values of a slice of fingerprints and how often each occurs, for the
// weightings of simhash features (SimHashParams.TF). Its buffers are reused
// between calls; the zero value is ready to use.
type termCounts struct {
	slots    []uint32 // index+1 into distinct, 0 = empty
	distinct []uint64 // in order of first occurrence
	counts   []uint32 // counts[i] is how often distinct[i] occurred
}

// count fills tc with the distinct values of xs and their counts. The
// fingerprints are uniform hashes, so their top bits (after one multiply,
// for safety against structured input) index the table directly. It
// allocates only when xs is longer than any slice before it.
func (tc *termCounts) count(xs []uint64) {
	tc.distinct, tc.counts = tc.distinct[:0], tc.counts[:0]
	if len(xs) == 0 {
		return
	}
	shift := 64 - bits.Len(uint(2*len(xs)-1)) // table of 2^(64-shift) ≥ 2·len(xs) slots
	size := 1 << (64 - shift)
	if cap(tc.slots) < size {
		tc.slots = make([]uint32, size)
	}
	slots := tc.slots[:size]
	clear(slots)
	mask := uint64(size - 1)
	for _, x := range xs {
		i := x * 0x9e3779b97f4a7c15 >> shift
		for {
			s := slots[i]
			if s == 0 {
				tc.distinct = append(tc.distinct, x)
				tc.counts = append(tc.counts, 1)
				slots[i] = uint32(len(tc.distinct))
				break
			}
			if tc.distinct[s-1] == x {
				tc.counts[s-1]++
				break
			}
			i = (i + 1) & mask
		}
	}
}
