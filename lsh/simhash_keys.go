package lsh

import (
	"fmt"
	"math"
)

// SimHashIndex lays out the permuted tables that find every fingerprint
// within Hamming distance k of a query without a scan (Manku, Jain and Das
// Sarma 2007). The 64 bits are cut into `blocks` contiguous blocks; each
// table keys a fingerprint on one choice of blocks−k of the blocks. Two
// fingerprints within k bits differ in at most k blocks, so they agree
// exactly on at least blocks−k of them — on the blocks of at least one
// table — and share that table's key. A key store's exact-key lookup on
// the masked bits does what Manku's sorted, permuted copies do with a range
// scan.
//
// The trade-off: there are C(blocks, k) tables (keys per document) and each
// key holds 64·(blocks−k)/blocks bits. With blocks = k+1 (the pigeonhole
// layout of SimHashKeys) there are only k+1 tables, but each key is a single
// block of 64/(k+1) bits: 16 bits for k = 3, about 10.7 for k = 5, 5.8 for
// k = 10 and 4 for k = 15. A random fingerprint matches a key of w bits with
// probability 2^−w, so with N stored documents a lookup returns about
// (k+1)·N·2^−w unrelated candidates: N/16000 for k = 3, N/270 for k = 5,
// N/5 for k = 10 and N — a scan — for k = 15. More blocks buy longer keys with
// more tables: k = 5 with 8 blocks is 56 tables of 24 bits; k = 10 or 15 on
// 64 bits has no layout that is both small and selective, which is why the
// papers that use such distances verify candidates found another way.
//
// A SimHashIndex is immutable and safe for concurrent use.
type SimHashIndex struct {
	k     int
	masks []uint64 // one per table: the bits of its blocks
	salts []uint64 // one per table, mixed into its keys
}

// NewSimHashIndex returns the layout of C(blocks, k) tables. It fails
// unless 0 <= k < blocks <= 64 and the tables number at most
// MaxKeyBands.
func NewSimHashIndex(k, blocks int) (*SimHashIndex, error) {
	if k < 0 || blocks <= k || blocks > 64 {
		return nil, fmt.Errorf("lsh: simhash index: need 0 <= k < blocks <= 64, got k=%d blocks=%d", k, blocks)
	}
	if n := SimHashTables(k, blocks); n > MaxKeyBands {
		return nil, fmt.Errorf("lsh: simhash index: C(%d,%d) = %d tables, at most %d", blocks, k, n, MaxKeyBands)
	}
	x := &SimHashIndex{k: k}
	block := blockMasks(blocks)
	chooseEach(blocks, blocks-k, func(keep []int) {
		var m uint64
		for _, i := range keep {
			m |= block[i]
		}
		x.masks = append(x.masks, m)
		x.salts = append(x.salts, mix64(uint64(len(x.salts))+0x5348494e44455821))
	})
	return x, nil
}

// Tables returns the number of tables, which is the number of keys per
// fingerprint.
func (x *SimHashIndex) Tables() int { return len(x.masks) }

// AppendKeys appends one key per table to dst: a bijective hash of the
// fingerprint's bits in that table's blocks, combined with the table index,
// so keys of different tables do not meet and, within a table, distinct
// block values never collide.
func (x *SimHashIndex) AppendKeys(dst []uint64, fp uint64) []uint64 {
	for t, m := range x.masks {
		dst = append(dst, mix64(fp&m^x.salts[t]))
	}
	return dst
}

// SimHashKeys returns the k+1 keys of fp in the pigeonhole layout: the 64
// bits cut into k+1 blocks, one table per block. Every fingerprint within k
// bits of fp shares at least one key with it. It panics unless 0 <= k <= 63.
func SimHashKeys(fp uint64, k int) []uint64 {
	x, err := NewSimHashIndex(k, k+1)
	if err != nil {
		panic(err.Error())
	}
	return x.AppendKeys(make([]uint64, 0, k+1), fp)
}

// SimHashTables returns C(blocks, k), the number of tables of the layout,
// saturating at math.MaxInt.
func SimHashTables(k, blocks int) int {
	if k < 0 || k > blocks {
		return 0
	}
	k = min(k, blocks-k)
	n := 1
	for i := 1; i <= k; i++ {
		if n > math.MaxInt/(blocks-k+i) {
			return math.MaxInt
		}
		n = n * (blocks - k + i) / i
	}
	return n
}

// blockMasks cuts 64 bits into n contiguous blocks, the first 64%n of them
// one bit longer.
func blockMasks(n int) []uint64 {
	masks := make([]uint64, n)
	lo := 0
	for i := range masks {
		w := 64 / n
		if i < 64%n {
			w++
		}
		if w == 64 {
			masks[i] = math.MaxUint64
		} else {
			masks[i] = (1<<w - 1) << lo
		}
		lo += w
	}
	return masks
}

// chooseEach calls fn with every r-subset of {0, …, n−1} in lexicographic
// order. fn must not keep the slice.
func chooseEach(n, r int, fn func([]int)) {
	c := make([]int, r)
	for i := range c {
		c[i] = i
	}
	for {
		fn(c)
		i := r - 1
		for i >= 0 && c[i] == n-r+i {
			i--
		}
		if i < 0 {
			return
		}
		c[i]++
		for j := i + 1; j < r; j++ {
			c[j] = c[j-1] + 1
		}
	}
}
