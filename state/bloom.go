package state

import (
	"math/bits"
	"sync/atomic"
)

// Shape of a bloom filter. At bloomBitsPerKey bits and bloomProbes probes per key,
// a full filter answers "maybe" for about 1.05% of absent keys, a little over the
// 0.8% of a classic Bloom filter, for touching one cache line. Six probes measure
// slightly better than seven (1.09%) or eight (1.19%) in a 512-bit block.
const (
	bloomBitsPerKey = 10
	bloomProbes     = 6
	blockBits       = 512 // one 64-byte cache line
	blockWords      = blockBits / 64
	// foldUnit is the granularity of a filter's size in blocks (4 KiB), so that
	// shrink can halve any filter a few times.
	foldUnit = 64
)

// bloom is a blocked Bloom filter over 64-bit key hashes: all the probes of a
// key fall in one 512-bit block, so a lookup reads one cache line. It answers
// "definitely absent" or "maybe present", never forgets a key, and is safe for
// concurrent use: bits are set and tested with atomic operations, so a key whose
// add has returned is found by every later mayContain on any goroutine.
//
// A key's block is the high half of hash × blocks (a range reduction that needs
// no division and lets shrink merge neighbouring blocks), which the top bits of
// the hash decide; its probes are derived by double hashing from bits 0-17, so
// the two are all but independent.
type bloom struct {
	words  []atomic.Uint64 // blocks × blockWords
	blocks uint64
	keys   atomic.Int64 // keys added, counting a key only if it set a bit
}

// newBloom returns an empty filter for at least keys keys. Filters of more than
// 32 KiB are page-aligned by Go's allocator, so blocks are cache lines.
func newBloom(keys int64) *bloom {
	n := (uint64(max(keys, 1))*bloomBitsPerKey + blockBits - 1) / blockBits
	n = (n + foldUnit - 1) / foldUnit * foldUnit
	return &bloom{words: make([]atomic.Uint64, n*blockWords), blocks: n}
}

// newSaturatedBloom returns a filter that answers "maybe" for every key: the
// stand-in while the filter of a database just opened is built. Nothing it is
// given counts as added, so it is never full.
func newSaturatedBloom() *bloom {
	f := newBloom(1)
	for i := range f.words {
		f.words[i].Store(^uint64(0))
	}
	return f
}

// capacity is the number of keys the filter holds at its design error rate.
func (f *bloom) capacity() int64 { return int64(f.blocks * blockBits / bloomBitsPerKey) }

// full reports that more keys were added than the filter was sized for.
func (f *bloom) full() bool { return f.keys.Load() > f.capacity() }

func (f *bloom) bytes() int64 { return int64(len(f.words)) * 8 }

// block returns the words of the block of h.
func (f *bloom) block(h uint64) []atomic.Uint64 {
	b, _ := bits.Mul64(h, f.blocks)
	return f.words[b*blockWords : (b+1)*blockWords : (b+1)*blockWords]
}

// probe returns the i-th bit of h within its block: h1 + i·h2 mod 512, with h2
// odd so that the probes of a key are distinct.
func probe(h, i uint64) (word uint64, mask uint64) {
	bit := (h + i*(h>>9|1)) % blockBits
	return bit / 64, 1 << (bit % 64)
}

// add sets the bits of h.
func (f *bloom) add(h uint64) {
	block := f.block(h)
	fresh := false
	for i := range uint64(bloomProbes) {
		w, m := probe(h, i)
		if block[w].Load()&m == 0 {
			block[w].Or(m)
			fresh = true
		}
	}
	if fresh {
		f.keys.Add(1)
	}
}

// addAll adds hashes in bulk, faster than one by one when the filter is larger
// than the CPU caches: it first reads each block with plain loads, whose cache
// misses overlap, since the atomic ORs of add would wait for each miss in turn.
func (f *bloom) addAll(hs []uint64) {
	var touched uint64
	for _, h := range hs {
		touched |= f.block(h)[0].Load()
	}
	for _, h := range hs {
		f.add(h)
	}
	_ = touched
}

// mayContain reports whether h may have been added; false is certain.
func (f *bloom) mayContain(h uint64) bool {
	block := f.block(h)
	for i := range uint64(bloomProbes) {
		w, m := probe(h, i)
		if block[w].Load()&m == 0 {
			return false
		}
	}
	return true
}

// shrink halves the filter, OR-ing block pairs 2i and 2i+1 into block i, while
// it would still hold keys keys. It keeps every key: halving the block count
// halves the block a hash maps to, as floor(floor(h·n/2⁶⁴)/2) = floor(h·(n/2)/2⁶⁴).
// shrink must not run concurrently with any other method.
func (f *bloom) shrink(keys int64) {
	for f.blocks%2 == 0 && f.capacity()/2 >= keys {
		half := make([]atomic.Uint64, len(f.words)/2)
		for i := range half {
			lo := i/blockWords*2*blockWords + i%blockWords
			half[i].Store(f.words[lo].Load() | f.words[lo+blockWords].Load())
		}
		f.words, f.blocks = half, f.blocks/2
	}
}
