package state

import (
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"
)

// The key filter is a bloom over every replay key in the database: the keys
// read by point lookups (Replayed, once for every document), which mostly
// miss. A lookup whose key the filter has never seen skips Badger; see the
// package documentation.

// filtered reports whether keys with this prefix are in the key filter.
func filtered(prefix byte) bool { return prefix == prefixReplay }

func keyHash(key []byte) uint64 { return xxhash.Sum64(key) }

// mayExist reports whether key may be stored; false is certain.
func (f *bloom) mayExist(key []byte) bool { return f.mayContain(keyHash(key)) }

// openFilter builds the key filter of a database just opened, sized for twice
// the keys its tables hold (an over-estimate: they hold other keys too) or
// FilterKeys, whichever is more. A database of more than openInBackground
// keys gets it in the background, as a growing filter does (rebuildFilter):
// until it is swapped in, the filter says "maybe" to every key, so lookups
// are right but all go to Badger. At a million documents the scan took 6–9
// seconds, for which Open would otherwise keep the filter from starting.
func (s *Store) openFilter() {
	var tableKeys int64
	for _, t := range s.db.Tables() {
		tableKeys += int64(t.KeyCount)
	}
	if tableKeys <= openInBackground {
		start := time.Now()
		f := s.buildFilter(2 * tableKeys)
		s.filter.Store(f)
		s.log.Debug("key filter built", filterFields(f, start)...)
		return
	}
	s.filter.Store(newSaturatedBloom())
	s.startRebuild(2 * tableKeys)
}

// openInBackground is the most keys a database opened may hold for openFilter
// to build its key filter before Open returns: about 300k documents, a scan of
// 2–4 s at the rate of the 6–9 s measured for a million; a variable so that
// tests can lower it.
var openInBackground int64 = 4 << 20

// growFilter starts replacing the key filter with one of twice its capacity
// once more keys were added to it than it was sized for. The new filter is
// built in the background (rebuildFilter) from a snapshot startRebuild takes, with
// writeMu held and no transaction open, so the snapshot holds every key added
// so far that was committed; keys that later writes add (push) go to the old
// filter, which readers keep using, and at the end of each write (still
// under writeMu) to the growth's list, which is added to the new filter
// before it replaces the old one. The writer never waits for
// the scan: at a million documents it takes seconds.
func (s *Store) growFilter() {
	if old := s.filter.Load(); old.full() && s.growth.Load() == nil {
		s.startRebuild(2 * old.capacity())
	}
}

// startRebuild starts building a key filter for want keys in the background
// (rebuildFilter). It must run with no write in flight (writeMu held, or
// before Open returns): the growth list is in place before the snapshot is
// taken, so every key is in one or the other. The rebuild holds the store
// open (Close waits for it, and it gives up its scan once Close has begun);
// none starts once Close has begun.
func (s *Store) startRebuild(want int64) {
	if s.enter() != nil {
		return
	}
	g := &filterGrowth{started: time.Now()}
	s.growth.Store(g)
	go s.rebuildFilter(want, s.db.NewTransaction(false), g)
}

// catchUpUnlocked is how many listed keys rebuildFilter still adds without
// the writer lock before it takes the lock for the rest.
const catchUpUnlocked = 4096

// testHookFilterBuilt, if set by a test, runs when rebuildFilter has scanned
// its snapshot and before it adds the keys written meanwhile.
var testHookFilterBuilt func()

// filterGrowth lists the hashes of the keys written while a new key filter is
// being built.
type filterGrowth struct {
	started time.Time
	mu      sync.Mutex
	hashes  []uint64
}

// addAll lists hs, one write's keys.
func (g *filterGrowth) addAll(hs []uint64) {
	g.mu.Lock()
	g.hashes = append(g.hashes, hs...)
	g.mu.Unlock()
}

// take returns the hashes listed so far and empties the list.
func (g *filterGrowth) take() []uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	hs := g.hashes
	g.hashes = nil
	return hs
}

// rebuildFilter builds the filter startRebuild started, sized for want keys,
// from snap, adds the keys written meanwhile, and swaps it in with
// writeMu held (no write in flight). A Close during the scan abandons it.
func (s *Store) rebuildFilter(want int64, snap *badger.Txn, g *filterGrowth) {
	defer s.leave()
	f, ok := s.buildFilterFrom(snap, want)
	snap.Discard()
	if testHookFilterBuilt != nil {
		testHookFilterBuilt()
	}
	if !ok {
		s.growth.Store(nil)
		return
	}
	// Catch up without the lock until little is left, then finish under it.
	for {
		hs := g.take()
		f.addAll(hs)
		if len(hs) <= catchUpUnlocked {
			break
		}
	}
	s.writeMu.Lock()
	f.addAll(g.take())
	s.filter.Store(f)
	s.growth.Store(nil)
	s.writeMu.Unlock()
	s.log.Info("key filter rebuilt", filterFields(f, g.started)...)
}

func filterFields(f *bloom, start time.Time) []zap.Field {
	return []zap.Field{zap.Int64("keys", f.keys.Load()), zap.Int64("capacity", f.capacity()),
		zap.Int64("bytes", f.bytes()), zap.Duration("took", time.Since(start))}
}

// buildFilter returns a filter of the keys stored now; see buildFilterFrom.
func (s *Store) buildFilter(want int64) *bloom {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	f, _ := s.buildFilterFrom(txn, want)
	return f
}

// buildFilterFrom returns a filter of the keys txn sees, sized for want keys
// if they fit, and shrunk to twice the keys found (at least FilterKeys).
// Expired keys are left out, so under a TTL a rebuild can shrink the filter.
// If want was too low the database is scanned a second time. false: the store
// is closing and the scan was abandoned.
func (s *Store) buildFilterFrom(txn *badger.Txn, want int64) (*bloom, bool) {
	floor := int64(s.opt.FilterKeys)
	f := newBloom(max(want, floor))
	n, ok := s.fillFilter(txn, f)
	if ok && n > f.capacity() {
		f = newBloom(2 * n)
		n, ok = s.fillFilter(txn, f)
	}
	f.shrink(max(2*n, floor))
	f.keys.Store(n)
	return f, ok
}

// fillFilter adds every filtered key txn sees to f, reading keys only, and
// returns how many there were; false if it stopped because the store is
// closing. It adds hashes in batches: each add is a cache miss, and a tight
// loop of them lets the CPU overlap the misses.
func (s *Store) fillFilter(txn *badger.Txn, f *bloom) (n int64, ok bool) {
	var hs [64]uint64
	i := 0
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixReplay}}) // PrefetchValues: false
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		hs[i] = keyHash(it.Item().Key())
		if i++; i == len(hs) {
			f.addAll(hs[:])
			i = 0
		}
		if n++; n%(1<<16) == 0 && s.closing() {
			return n, false
		}
	}
	f.addAll(hs[:i])
	return n, true
}
