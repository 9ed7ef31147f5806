// Package postings is the in-memory index of a state's LSH band buckets, content-hash groups and replay keys: a compact multimap from 64-bit keys to ascending sequence numbers.
//
// The state keeps these postings in memory rather than as Badger keys: a
// Badger key costs a random insert into a memtable skiplist (~4–5 µs here,
// mostly cache misses), an entry in the write-ahead log, and its share of
// every flush and compaction, while a posting here costs about one cache
// miss. The state rebuilds its indexes at open from the markers it
// keeps on disk (one key per transaction, listing its documents' keys).
//
// An Index is split into shards by the key's top bits; each is an
// open-addressing table of 8-byte slots under its own read-write lock, so
// readers on any number of goroutines interleave with the one writer, and a
// shard that grows rehashes only its own slots (well under a millisecond at
// a million documents). Touch reads slots without the lock, ahead of the
// lookups and adds that follow it, so that their cache misses overlap; so
// every slot is read and written atomically (on amd64 a load is a plain
// load, a store a locked exchange: Add costs ~3% more for it,
// BenchmarkAddMillion). A slot holds a 32-bit fingerprint of the key and
// either one seq or a reference to a list of seqs in the shard's pool, one
// []uint32 for all its lists. Neither holds a pointer, so the garbage
// collector has nothing to scan in an index of any size. Keys are not
// stored: two keys of one shard with the same fingerprint share a bucket
// (for a shard holding n keys, a lookup of an absent key finds a false
// bucket with probability about n/2³²). Callers must therefore check what a
// posting leads to, as the state does: a candidate is verified by its
// sketch, an exact match by its content hash.
//
// Seqs are stored as 31-bit offsets from a per-shard base, so a shard holds
// the postings of at most 2³¹ consecutive seqs: a posting 2³¹ seqs or more
// above the oldest ones drops those (Add reports how many). The state's
// seqs are dense, so this takes two billion documents stored in one index,
// whose postings alone would need ~300 GB; with expiry (DropBelow) the base
// moves up with the oldest posting left.
package postings

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// shardBits is log2 of the number of shards: enough that a shard's growth
// is a short pause, few enough that a small index stays small.
const shardBits = 8

const (
	shardCount = 1 << shardBits
	minSlots   = 8
	listFlag   = 1 << 31 // slot value: a list's offset in the pool, not a seq offset
	maxOffset  = listFlag - 1
	maxLoadNum = 4 // grow past a load of maxLoadNum/maxLoadDen
	maxLoadDen = 5
	slotBytes  = 8
	listHead   = 2 // a list in the pool: its length, its capacity, then the offsets
)

// Index maps 64-bit keys to ascending seqs. It is safe for concurrent use:
// every method but Touch holds the lock of the shard it reads or changes
// (DropBelow, Len and Bytes take each shard's in turn), so a lookup sees
// each key's postings before or after an Add, never halfway; it may see
// some of the postings of a batch added one by one and not the rest.
type Index struct {
	shards [shardCount]shard
}

type shard struct {
	mu sync.RWMutex
	// slots are fingerprint<<32 | value; 0 is empty. They are read and
	// written under mu, and read without it by Touch, which finds them
	// through table: so every access is atomic. A new table is published
	// through table when it is made, so Touch may find it being filled.
	slots   []atomic.Uint64
	table   atomic.Pointer[[]atomic.Uint64]
	used    int      // slots in use
	base    uint64   // seq offsets are from base; valid once count > 0
	pool    []uint32 // lists: buckets of two or more postings, offsets ascending
	garbage int      // words of pool no slot refers to any more
	count   int      // postings
}

// New returns an empty index.
func New() *Index {
	x := &Index{}
	for i := range x.shards {
		x.shards[i].setTable(minSlots)
	}
	return x
}

// locate returns the shard of key and the key's fingerprint, never 0, which
// also decides the key's home slot.
func (x *Index) locate(key uint64) (*shard, uint32) {
	h := mix(key)
	return &x.shards[h>>(64-shardBits)], fingerprint(h)
}

// fingerprint is the fingerprint of a key whose hash (mix) is h: its low 32
// bits, never 0. It also decides the key's home slot.
func fingerprint(h uint64) uint32 {
	if fp := uint32(h); fp != 0 {
		return fp
	}
	return 1
}

// mix is a bijective finaliser (MurmurHash3's fmix64), so that keys that are
// not already well spread still fill the shards and slots evenly.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Add lists seq under key; a seq already listed under key is not listed
// twice. dropped counts the postings it removed, or did not add, to keep
// the shard's seqs within 2³¹ of each other (see the package documentation):
// 0 but for an index of two billion documents.
func (x *Index) Add(key, seq uint64) (dropped int) {
	sh, fp := x.locate(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if dropped = sh.fit(seq); dropped < 0 {
		return 1 // seq itself is the one too old
	}
	off := uint32(seq - sh.base)
	i, found := sh.find(fp)
	if !found {
		sh.slots[i].Store(uint64(fp)<<32 | uint64(off))
		sh.used++
		sh.count++
		if sh.used*maxLoadDen > len(sh.slots)*maxLoadNum {
			sh.rehash(2 * len(sh.slots))
		}
		return dropped
	}
	v := uint32(sh.slots[i].Load())
	switch {
	case v&listFlag != 0:
		if ref, added := sh.insert(v&^listFlag, off); added {
			sh.slots[i].Store(uint64(fp)<<32 | uint64(ref|listFlag))
			sh.count++
			sh.compactIfWasteful()
		}
	case v != off:
		sh.slots[i].Store(uint64(fp)<<32 | uint64(sh.newList(min(v, off), max(v, off))|listFlag))
		sh.count++
	}
	return dropped
}

// list returns the offsets of the list at ref, in the pool.
func (sh *shard) list(ref uint32) []uint32 {
	return sh.pool[ref+listHead : ref+listHead+sh.pool[ref]]
}

// newList appends a list of two offsets to the pool and returns its ref.
func (sh *shard) newList(a, b uint32) uint32 {
	ref := uint32(len(sh.pool))
	sh.pool = append(sh.pool, 2, 2, a, b)
	return ref
}

// insert adds off to the list at ref, in order, unless it is there; the
// list moves to the end of the pool, at twice the capacity, when full.
func (sh *shard) insert(ref, off uint32) (uint32, bool) {
	n, c := sh.pool[ref], sh.pool[ref+1]
	l := sh.pool[ref+listHead : ref+listHead+n]
	at, dup := slices.BinarySearch(l, off)
	if dup {
		return ref, false
	}
	if n < c {
		l = l[:n+1]
		copy(l[at+1:], l[at:n])
		l[at] = off
		sh.pool[ref]++
		return ref, true
	}
	moved := uint32(len(sh.pool))
	sh.pool = append(sh.pool, n+1, 2*c)
	sh.pool = append(sh.pool, l[:at]...)
	sh.pool = append(sh.pool, off)
	sh.pool = append(sh.pool, sh.pool[ref+listHead+uint32(at):ref+listHead+n]...)
	sh.pool = append(sh.pool, make([]uint32, 2*c-(n+1))...)
	sh.garbage += listHead + int(c)
	return moved, true
}

// compactFloor is the fewest garbage words worth a rewrite of a pool; a
// variable so that tests can lower it.
var compactFloor = 1024

// compactIfWasteful rewrites the pool once a third of it or more is lists
// that moved on (a list that grows by doubling leaves about its own size
// behind), keeping each list's capacity.
func (sh *shard) compactIfWasteful() {
	if sh.garbage < compactFloor || 3*sh.garbage < len(sh.pool) {
		return
	}
	sh.repool(func(l []uint32) []uint32 { return l }, func(_, c int) int { return c })
}

// repool copies the lists the slots refer to into a new pool, each as keep
// leaves it, at the capacity capFor(its length, its capacity) gives it (at
// least its length), and returns how many offsets keep removed. A list keep
// leaves one offset becomes a single seq in its slot; a list it empties
// loses its slot, which leaves holes in probe runs and used too high: the
// caller must then rebuild the table. A list's offset in the pool stays
// below 2³¹ words (8 GiB a shard), far beyond any index that fits in memory.
func (sh *shard) repool(keep func([]uint32) []uint32, capFor func(n, c int) int) (removed int) {
	pool := make([]uint32, 0, len(sh.pool)-sh.garbage)
	for i := range sh.slots {
		s := sh.slots[i].Load()
		v := uint32(s)
		if s == 0 || v&listFlag == 0 {
			continue
		}
		ref := v &^ listFlag
		l := sh.list(ref)
		k := keep(l)
		removed += len(l) - len(k)
		switch len(k) {
		case 0:
			sh.slots[i].Store(0)
		case 1:
			sh.slots[i].Store(s&^0xffffffff | uint64(k[0]))
		default:
			c := max(len(k), capFor(len(k), int(sh.pool[ref+1])))
			moved := uint32(len(pool))
			pool = append(pool, uint32(len(k)), uint32(c))
			pool = append(pool, k...)
			pool = append(pool, make([]uint32, c-len(k))...)
			sh.slots[i].Store(s&^0xffffffff | uint64(moved|listFlag))
		}
	}
	if 2*len(pool) < cap(pool) { // a drop removed much: give the rest back
		pool = slices.Clone(pool)
	}
	sh.pool, sh.garbage = pool, 0
	return removed
}

// fit makes seq representable as an offset from the shard's base, moving
// the base down (or, for an empty shard, anywhere) if it must. Where the
// shard's seqs and seq would span more than 2³¹, it drops the oldest
// postings and returns how many; -1 says seq itself is too old to hold.
func (sh *shard) fit(seq uint64) int {
	if sh.count == 0 {
		sh.base = seq
		return 0
	}
	if seq >= sh.base && seq-sh.base <= maxOffset {
		return 0
	}
	lo, hi := sh.span()
	if seq < lo && hi-seq > maxOffset {
		return -1
	}
	if seq > hi && seq-lo > maxOffset {
		dropped := sh.dropBelow(seq - maxOffset)
		if sh.count == 0 {
			sh.base = seq
		}
		return dropped
	}
	sh.rebase(min(lo, seq))
	return 0
}

// span returns the smallest and largest seq the shard holds (count > 0).
func (sh *shard) span() (lo, hi uint64) {
	lo, hi = ^uint64(0), 0
	for i := range sh.slots {
		s := sh.slots[i].Load()
		if s == 0 {
			continue
		}
		first, last := sh.ends(uint32(s))
		lo, hi = min(lo, sh.base+uint64(first)), max(hi, sh.base+uint64(last))
	}
	return lo, hi
}

// ends returns the first and last offset of a slot's value.
func (sh *shard) ends(v uint32) (first, last uint32) {
	if v&listFlag == 0 {
		return v, v
	}
	l := sh.list(v &^ listFlag)
	return l[0], l[len(l)-1]
}

// rebase re-expresses every offset from base, which is at most every seq
// held, and within 2³¹ of them all.
func (sh *shard) rebase(base uint64) {
	for i := range sh.slots {
		s := sh.slots[i].Load()
		switch v := uint32(s); {
		case s == 0:
		case v&listFlag == 0:
			sh.slots[i].Store(s&^0xffffffff | (sh.base + uint64(v) - base))
		default:
			l := sh.list(v &^ listFlag)
			for j, off := range l {
				l[j] = uint32(sh.base + uint64(off) - base)
			}
		}
	}
	sh.base = base
}

// find returns the slot holding fp, or the empty slot where it would go.
func (sh *shard) find(fp uint32) (int, bool) {
	mask := len(sh.slots) - 1
	for i := int(fp) & mask; ; i = (i + 1) & mask {
		s := sh.slots[i].Load()
		if s == 0 {
			return i, false
		}
		if uint32(s>>32) == fp {
			return i, true
		}
	}
}

// rehash moves the shard's slots in use into a table of n slots (a power of
// two), closing the holes emptied slots left in probe runs, and recounts used.
func (sh *shard) rehash(n int) {
	old := sh.slots
	sh.setTable(n)
	for j := range old {
		if s := old[j].Load(); s != 0 {
			i, _ := sh.find(uint32(s >> 32))
			sh.slots[i].Store(s)
			sh.used++
		}
	}
}

// setTable gives the shard an empty table of n slots, and Touch a copy of
// its slice header to find it by.
func (sh *shard) setTable(n int) {
	slots := make([]atomic.Uint64, n)
	sh.slots, sh.used = slots, 0
	sh.table.Store(&slots)
}

// Lookup appends to dst the seqs listed under key that are at least from and
// below before, ascending, at most max of them; more reports that further
// ones were left.
func (x *Index) Lookup(dst []uint64, key, from, before uint64, max int) (out []uint64, more bool) {
	sh, fp := x.locate(key)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	i, found := sh.find(fp)
	if !found || before <= from {
		return dst, false
	}
	v := uint32(sh.slots[i].Load())
	if v&listFlag == 0 {
		seq := sh.base + uint64(v)
		if seq < from || seq >= before {
			return dst, false
		}
		if max <= 0 {
			return dst, true
		}
		return append(dst, seq), false
	}
	l := sh.list(v &^ listFlag)
	at := 0
	if from > sh.base {
		at, _ = slices.BinarySearch(l, uint32(min(from-sh.base, maxOffset+1)))
	}
	n := 0
	for _, off := range l[at:] {
		seq := sh.base + uint64(off)
		if seq >= before {
			break
		}
		if n >= max {
			return dst, true
		}
		dst = append(dst, seq)
		n++
	}
	return dst, false
}

// Touch reads the slots where lookups or adds of keys will start, so that
// those calls find them in the CPU cache. It is a hint: it changes nothing,
// and what it reads may be out of date by the time they run.
//
// In an index of millions of keys nearly every slot a key lands on is a
// cache miss (~200 ns on the 2-core test machine), and in Lookup and Add
// those misses queue: taking and releasing a shard's lock are atomic
// instructions that wait for the loads before them. Touch takes no lock
// (it finds each shard's table through an atomic pointer), and its loads do
// not depend on each other, so the CPU overlaps their misses. Worth calling
// before a few dozen keys' lookups or adds; over many more, the first may
// leave the cache before their call comes.
//
// It reads two cache lines a key, the home slot's and the next (the same
// one in a table of 8 slots): a probe run often crosses into the next.
// (Atomic loads stay in the compiled code though their values are unused.)
func (x *Index) Touch(keys []uint64) {
	for _, key := range keys {
		h := mix(key)
		slots := *x.shards[h>>(64-shardBits)].table.Load()
		mask := uint64(len(slots) - 1)
		i := uint64(fingerprint(h))
		slots[i&mask].Load()
		slots[(i+8)&mask].Load()
	}
}

// DropBelow removes every posting of a seq below lo (the documents that have
// expired) and returns how many it removed. Each shard that holds one is
// rebuilt under its own lock, one after the other.
func (x *Index) DropBelow(lo uint64) int {
	dropped := 0
	for i := range x.shards {
		sh := &x.shards[i]
		sh.mu.Lock()
		dropped += sh.dropBelow(lo)
		sh.mu.Unlock()
	}
	return dropped
}

// dropBelow is DropBelow for one shard, whose lock the caller holds.
func (sh *shard) dropBelow(lo uint64) int {
	if sh.count == 0 || lo <= sh.base {
		return 0
	}
	var cut uint32 // offsets below cut go
	if lo-sh.base > maxOffset {
		cut = maxOffset + 1
	} else {
		cut = uint32(lo - sh.base)
	}
	before := sh.count
	for i := range sh.slots { // single seqs; lists below
		if s := sh.slots[i].Load(); s != 0 && uint32(s)&listFlag == 0 && uint32(s) < cut {
			sh.slots[i].Store(0)
			sh.count--
		}
	}
	sh.count -= sh.repool(func(l []uint32) []uint32 {
		at, _ := slices.BinarySearch(l, cut)
		return l[at:]
	}, func(n, c int) int {
		if 2*n >= c { // little was cut: room to grow, as before
			return c
		}
		return n
	})
	keys := 0
	for i := range sh.slots {
		if sh.slots[i].Load() != 0 {
			keys++
		}
	}
	sh.rehash(slotsFor(keys))
	if sh.count > 0 {
		// Move the base up to the oldest posting left, so the span fits
		// again however long the stream runs under expiry.
		lo, _ := sh.span()
		sh.rebase(lo)
	}
	return before - sh.count
}

// slotsFor is the table size for n keys: a power of two, loaded at most to
// half, so that a rebuilt shard does not grow again at once.
func slotsFor(n int) int {
	return max(minSlots, 1<<bits.Len(uint(2*n)))
}

// Len returns the number of postings.
func (x *Index) Len() int {
	n := 0
	for i := range x.shards {
		sh := &x.shards[i]
		sh.mu.RLock()
		n += sh.count
		sh.mu.RUnlock()
	}
	return n
}

// Bytes returns the memory the index holds: slot tables and list pools.
func (x *Index) Bytes() int64 {
	var b int64
	for i := range x.shards {
		sh := &x.shards[i]
		sh.mu.RLock()
		b += slotBytes*int64(len(sh.slots)) + 4*int64(cap(sh.pool))
		sh.mu.RUnlock()
	}
	return b
}
