package state

import (
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"
)

// The key filter is a bloom over every replay key and group head in the
// database: the keys read by point lookups, which mostly miss. A lookup whose
// key the filter has never seen skips Badger; see the package documentation.

// filtered reports whether keys with this prefix are in the key filter.
func filtered(prefix byte) bool {
	return prefix == prefixReplay || prefix == prefixHashHead || prefix == prefixBucketHead
}

func keyHash(key []byte) uint64 { return xxhash.Sum64(key) }

// mayExist reports whether key may be stored; false is certain.
func (f *bloom) mayExist(key []byte) bool { return f.mayContain(keyHash(key)) }

// openFilter builds the key filter of a database just opened, sized for twice
// the keys its tables hold (an over-estimate: they hold other keys too) or
// FilterKeys, whichever is more.
func (s *Store) openFilter() {
	var tableKeys int64
	for _, t := range s.db.Tables() {
		tableKeys += int64(t.KeyCount)
	}
	start := time.Now()
	f := s.buildFilter(2 * tableKeys)
	s.filter.Store(f)
	s.log.Debug("key filter built", filterFields(f, start)...)
}

// growFilter replaces the key filter with one of twice its capacity once more
// keys were added to it than it was sized for. It runs with writeMu held and no
// transaction open, so every key added to the old filter is committed (or its
// write failed, and it need not be kept) and no key is added while the database
// is scanned. Readers keep using the old filter until the new one replaces it.
func (s *Store) growFilter() {
	old := s.filter.Load()
	if !old.full() {
		return
	}
	start := time.Now()
	f := s.buildFilter(2 * old.capacity())
	s.filter.Store(f)
	s.log.Info("key filter rebuilt", filterFields(f, start)...)
}

func filterFields(f *bloom, start time.Time) []zap.Field {
	return []zap.Field{zap.Int64("keys", f.keys.Load()), zap.Int64("capacity", f.capacity()),
		zap.Int64("bytes", f.bytes()), zap.Duration("took", time.Since(start))}
}

// buildFilter returns a filter of the keys stored now, sized for want keys if
// they fit, and shrunk to twice the keys found (at least FilterKeys). Expired
// keys are left out, so under a TTL a rebuild can shrink the filter. If want was
// too low the database is scanned a second time.
func (s *Store) buildFilter(want int64) *bloom {
	floor := int64(s.opt.FilterKeys)
	f := newBloom(max(want, floor))
	n := s.fillFilter(f)
	if n > f.capacity() {
		f = newBloom(2 * n)
		n = s.fillFilter(f)
	}
	f.shrink(max(2*n, floor))
	f.keys.Store(n)
	return f
}

// fillFilter adds every filtered key stored now to f, reading keys only, and
// returns how many there were. It adds hashes in batches: each add is a cache
// miss, and a tight loop of them lets the CPU overlap the misses.
func (s *Store) fillFilter(f *bloom) (n int64) {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	var hs [64]uint64
	i := 0
	for _, prefix := range []byte{prefixReplay, prefixHashHead, prefixBucketHead} {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefix}}) // PrefetchValues: false
		for it.Rewind(); it.Valid(); it.Next() {
			hs[i] = keyHash(it.Item().Key())
			if i++; i == len(hs) {
				f.addAll(hs[:])
				i = 0
			}
			n++
		}
		it.Close()
	}
	f.addAll(hs[:i])
	return n
}
