package postings

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// model is the reference the index is checked against: every key's seqs.
type model map[uint64][]uint64

func (m model) add(key, seq uint64) {
	l := m[key]
	at, dup := slices.BinarySearch(l, seq)
	if !dup {
		m[key] = slices.Insert(l, at, seq)
	}
}

func (m model) lookup(key, from, before uint64, max int) ([]uint64, bool) {
	var out []uint64
	for _, seq := range m[key] {
		if seq < from {
			continue
		}
		if seq >= before {
			break
		}
		if len(out) == max {
			return out, true
		}
		out = append(out, seq)
	}
	return out, false
}

func (m model) dropBelow(lo uint64) int {
	n := 0
	for k, l := range m {
		at, _ := slices.BinarySearch(l, lo)
		n += at
		if at == len(l) {
			delete(m, k)
		} else {
			m[k] = l[at:]
		}
	}
	return n
}

func (m model) len() int {
	n := 0
	for _, l := range m {
		n += len(l)
	}
	return n
}

// TestIndexAgainstModel runs random adds (in ascending seq order mostly, some
// late and some repeated, as the state's writer does), lookups and expiries
// against the model, with few keys so that buckets grow long and many so
// that shards grow and rehash.
func TestIndexAgainstModel(t *testing.T) {
	defer func(n int) { compactFloor = n }(compactFloor)
	compactFloor = 16 // so that pools are rewritten between the drops too
	for _, keys := range []int{20, 5000, 200000} {
		rng := rand.New(rand.NewPCG(uint64(keys), 7))
		x, m := New(), model{}
		key := func() uint64 { return uint64(rng.IntN(keys))*0x9e3779b97f4a7c15 + 1 }
		var seq, lo uint64 = 1000, 0
		for op := 0; op < 300000; op++ {
			switch r := rng.IntN(100); {
			case r < 60:
				seq++
				k := key()
				if n := x.Add(k, seq); n != 0 {
					t.Fatalf("Add dropped %d", n)
				}
				m.add(k, seq)
			case r < 65: // a late or repeated posting
				s := seq - uint64(rng.IntN(50))
				if s < lo {
					continue
				}
				k := key()
				if n := x.Add(k, s); n != 0 {
					t.Fatalf("Add dropped %d", n)
				}
				m.add(k, s)
			case r < 99:
				k := key()
				from := uint64(rng.IntN(int(seq) + 1))
				if rng.IntN(2) == 0 {
					from = 0
				}
				before := from + uint64(rng.IntN(int(seq)+10))
				max := rng.IntN(5)
				got, more := x.Lookup(nil, k, from, before, max)
				want, wantMore := m.lookup(k, from, before, max)
				if !slices.Equal(got, want) || more != wantMore {
					t.Fatalf("keys %d op %d: Lookup(%x, %d, %d, %d) = %v %v, want %v %v", keys, op, k, from, before, max, got, more, want, wantMore)
				}
			default:
				lo = seq - uint64(rng.IntN(2000))
				if got, want := x.DropBelow(lo), m.dropBelow(lo); got != want {
					t.Fatalf("keys %d op %d: DropBelow(%d) = %d, want %d", keys, op, lo, got, want)
				}
				checkIndex(t, x)
			}
		}
		if got, want := x.Len(), m.len(); got != want {
			t.Fatalf("keys %d: Len %d, want %d", keys, got, want)
		}
		checkIndex(t, x)
		for k := range m {
			got, _ := x.Lookup(nil, k, 0, ^uint64(0), 1<<30)
			if !slices.Equal(got, m[k]) {
				t.Fatalf("keys %d: key %x holds %v, want %v", keys, k, got, m[k])
			}
		}
	}
}

// TestIndexSpan: a shard holds seqs within 2³¹ of each other. A seq that
// far above the oldest drops them; one that far below the newest is not
// added; one below the oldest, within the span, moves the base down.
func TestIndexSpan(t *testing.T) {
	x := New()
	const k = 42
	add := func(seq uint64, dropped int) {
		t.Helper()
		if got := x.Add(k, seq); got != dropped {
			t.Fatalf("Add(%d) dropped %d, want %d", seq, got, dropped)
		}
	}
	add(10, 0)
	add(11, 0)
	add(10+1<<31-1, 0) // 11 and 10+2³¹-1 are 2³¹-2 apart
	add(5, 1)          // too old
	add(10+1<<31, 1)   // 10 goes
	add(20+1<<31, 1)   // 11 goes
	add(5+1<<30, 0)    // below the base now
	got, _ := x.Lookup(nil, k, 0, ^uint64(0), 10)
	want := []uint64{5 + 1<<30, 10 + 1<<31 - 1, 10 + 1<<31, 20 + 1<<31}
	if !slices.Equal(got, want) {
		t.Fatalf("Lookup = %v, want %v", got, want)
	}
	if x.Len() != len(want) {
		t.Fatalf("Len %d, want %d", x.Len(), len(want))
	}
}

// TestIndexConcurrentReaders: lookups on other goroutines while one writer
// adds and drops (run with -race) see, for a key, a list that is always
// ascending and within what was ever added.
func TestIndexConcurrentReaders(t *testing.T) {
	x := New()
	const keys = 64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []uint64
			for i := uint64(0); ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				buf, _ = x.Lookup(buf[:0], i%keys, 0, ^uint64(0), 100)
				if !slices.IsSorted(buf) {
					t.Errorf("unsorted %v", buf)
					return
				}
				for _, s := range buf {
					if s%keys != i%keys {
						t.Errorf("seq %d under key %d", s, i%keys)
						return
					}
				}
			}
		}()
	}
	for seq := uint64(1); seq < 100000; seq++ {
		x.Add(seq%keys, seq)
		if seq%10000 == 0 {
			x.DropBelow(seq - 5000)
		}
	}
	close(stop)
	wg.Wait()
}

// TestTouchAmidWrites: Touch, which reads slots without the lock, runs
// while the writer grows every shard's table, drops postings (writing slots
// in place, shrinking tables) and adds to lists; the race detector sees
// every access, and the index ends as the model says: Touch changed nothing.
func TestTouchAmidWrites(t *testing.T) {
	x, m := New(), model{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 7))
			keys := make([]uint64, 32)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := range keys {
					keys[i] = rng.Uint64N(1 << 16)
				}
				x.Touch(keys)
			}
		}()
	}
	for seq := uint64(1); seq <= 100_000; seq++ {
		key := seq % (1 << 16) // distinct keys first, then lists
		x.Add(key, seq)
		m.add(key, seq)
		if seq%25_000 == 0 {
			x.DropBelow(seq - 20_000)
			m.dropBelow(seq - 20_000)
		}
	}
	close(stop)
	wg.Wait()
	checkIndex(t, x)
	if x.Len() != m.len() {
		t.Fatalf("%d postings, want %d", x.Len(), m.len())
	}
	for key := range m {
		got, _ := x.Lookup(nil, key, 0, ^uint64(0), 1<<20)
		if want, _ := m.lookup(key, 0, ^uint64(0), 1<<20); !slices.Equal(got, want) {
			t.Fatalf("key %d: %v, want %v", key, got, want)
		}
	}
}

// TestIndexBytes: about 8 bytes a slot at a load between 0.4 and 0.8, for
// keys of one posting each.
func TestIndexBytes(t *testing.T) {
	x := New()
	const n = 1 << 20
	for i := uint64(1); i <= n; i++ {
		x.Add(i*0x9e3779b97f4a7c15, i)
	}
	var slots int64
	for i := range x.shards {
		slots += int64(len(x.shards[i].slots))
	}
	if x.Bytes() != 8*slots {
		t.Fatalf("Bytes %d, want 8 × %d slots", x.Bytes(), slots)
	}
	per := float64(x.Bytes()) / n
	if per < 10 || per > 20 {
		t.Fatalf("%.1f bytes a posting, want 10-20 (8-byte slots at load 0.4-0.8)", per)
	}
	t.Logf("%d postings: %.1f bytes each", n, per)
}

// TestIndexHotBuckets: buckets that grow to thousands of postings move to
// the end of their shard's pool each time they fill; once most of the pool
// is lists that moved on, it is rewritten, and every bucket still holds its
// postings in order.
func TestIndexHotBuckets(t *testing.T) {
	x, m := New(), model{}
	for seq := uint64(1); seq <= 60000; seq++ {
		k := seq % 6 // six keys: a few shards, each list doubling again and again
		x.Add(k, seq)
		m.add(k, seq)
	}
	// Without rewrites the moved lists (2+2, 2+4, … of each) would be as
	// large as the live ones.
	checkIndex(t, x)
	for k := range m {
		got, _ := x.Lookup(nil, k, 0, ^uint64(0), 1<<30)
		if !slices.Equal(got, m[k]) {
			t.Fatalf("key %d holds %d postings, want %d", k, len(got), len(m[k]))
		}
	}
}

// checkIndex fails unless every shard's bookkeeping holds: used counts the
// slots in use, the table is at most 80% full, each list its slots refer to
// holds 2 to its capacity offsets, ascending, in a block of its own inside
// the pool, the rest of the pool is garbage as counted, there is less of it
// than a rewrite would leave, count counts the postings, and Bytes adds up.
func checkIndex(t *testing.T, x *Index) {
	t.Helper()
	var bytes int64
	for i := range x.shards {
		sh := &x.shards[i]
		bytes += slotBytes*int64(len(sh.slots)) + 4*int64(cap(sh.pool))
		used, postings, live := 0, 0, 0
		owner := make([]int, len(sh.pool)) // slot+1 owning each word, 0 for none
		if p := sh.table.Load(); p == nil || len(*p) != len(sh.slots) || &(*p)[0] != &sh.slots[0] {
			t.Fatalf("shard %d: the table Touch reads is not the shard's slots", i)
		}
		for j := range sh.slots {
			s := sh.slots[j].Load()
			if s == 0 {
				continue
			}
			used++
			v := uint32(s)
			if v&listFlag == 0 {
				postings++
				continue
			}
			ref := int(v &^ listFlag)
			if ref+listHead > len(sh.pool) {
				t.Fatalf("shard %d slot %d: list at %d past the pool's %d words", i, j, ref, len(sh.pool))
			}
			n, c := int(sh.pool[ref]), int(sh.pool[ref+1])
			if n < 2 || n > c || ref+listHead+c > len(sh.pool) {
				t.Fatalf("shard %d slot %d: list at %d of %d/%d in a pool of %d", i, j, ref, n, c, len(sh.pool))
			}
			if l := sh.list(uint32(ref)); !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != n {
				t.Fatalf("shard %d slot %d: list %v not strictly ascending", i, j, l)
			}
			for w := ref; w < ref+listHead+c; w++ {
				if owner[w] != 0 {
					t.Fatalf("shard %d: slots %d and %d share pool word %d", i, owner[w]-1, j, w)
				}
				owner[w] = j + 1
			}
			postings += n
			live += listHead + c
		}
		switch {
		case used != sh.used:
			t.Fatalf("shard %d: %d slots in use, used says %d", i, used, sh.used)
		case used*maxLoadDen > len(sh.slots)*maxLoadNum:
			t.Fatalf("shard %d: %d of %d slots in use", i, used, len(sh.slots))
		case postings != sh.count:
			t.Fatalf("shard %d: %d postings, count says %d", i, postings, sh.count)
		case live != len(sh.pool)-sh.garbage:
			t.Fatalf("shard %d: %d live words, pool of %d with %d garbage", i, live, len(sh.pool), sh.garbage)
		case sh.garbage >= compactFloor && 3*sh.garbage >= len(sh.pool):
			t.Fatalf("shard %d: %d of a pool of %d words are garbage", i, sh.garbage, len(sh.pool))
		}
	}
	if x.Bytes() != bytes {
		t.Fatalf("Bytes %d, counted %d", x.Bytes(), bytes)
	}
}

// TestIndexDropShrinksTable: after a drop a shard's table is sized for the
// keys left, not for their postings: one key of 10,000 postings takes a
// table of the smallest size.
func TestIndexDropShrinksTable(t *testing.T) {
	x := New()
	const k = 7
	for seq := uint64(1); seq <= 10000; seq++ {
		x.Add(k, seq)
	}
	if got := x.DropBelow(100); got != 99 {
		t.Fatalf("DropBelow dropped %d, want 99", got)
	}
	sh, _ := x.locate(k)
	if len(sh.slots) != minSlots {
		t.Errorf("one key left: a table of %d slots, want %d", len(sh.slots), minSlots)
	}
	checkIndex(t, x)
}
