package state

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state/postings"
)

// loadIndex builds the in-memory indexes of postings and replay postings
// from what the database holds: the markers, which list their documents'
// index keys (one a transaction; one a document in states written before
// format 4); the posting keys of states written before format 3; the
// replay keys of states written before format 5. A reader finds nothing
// until they are built, so Open waits for them.
func (s *Store) loadIndex() error {
	start := time.Now()
	s.index, s.replays = postings.New(), postings.New()
	var keys int
	for _, t := range s.db.Tables() {
		keys += int(t.KeyCount)
	}
	parallel := keys >= streamKeys
	docs, err := s.indexKeys(prefixMarker, s.indexMarker, parallel)
	if err != nil {
		return fmt.Errorf("load the postings index: %w", err)
	}
	older, err := s.indexKeys(prefixPublished, s.indexDocMarker, parallel)
	if err != nil {
		return fmt.Errorf("load the postings index from format-3 markers: %w", err)
	}
	docs += older
	replayKeys, err := s.indexKeys(prefixReplay, s.indexReplayKey, parallel)
	if err != nil {
		return fmt.Errorf("load the replay index from the replay keys of formats 1 to 4: %w", err)
	}
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	legacy, err := s.indexLegacy(txn)
	if err != nil {
		return fmt.Errorf("load the postings index from format-2 keys: %w", err)
	}
	s.log.Info("postings index loaded", zap.Int64("documents", docs), zap.Int64("format2_postings", legacy),
		zap.Int64("format4_replay_keys", replayKeys), zap.Int("postings", s.index.Len()), zap.Int("replay_postings", s.replays.Len()),
		zap.Int64("bytes", s.index.Bytes()+s.replays.Bytes()), zap.Duration("took", time.Since(start)))
	return nil
}

// streamKeys is the number of keys in the store's tables from which
// loadIndex reads on several goroutines. Badger's Stream allocates a 32 MiB
// buffer for each of them however few keys there are: below this, one
// iterator is cheaper, and a sharded instance opens a store per shard.
var streamKeys = 1 << 18 // a variable for tests

// indexKeys adds the postings every key under prefix leads to (index adds
// one key's — a marker's, a legacy replay key's — and returns how many
// documents it listed). With parallel (a large store) it reads the keys'
// ranges on GOMAXPROCS goroutines (Badger's Stream): at a million documents
// one goroutine took 4–5.5 s on 2 cores. It runs before Open returns, so
// nothing writes meanwhile and the goroutines' snapshots are the same.
func (s *Store) indexKeys(prefix byte, index func(*badger.Item) (int, error), parallel bool) (docs int64, err error) {
	if !parallel {
		return s.indexKeysInOrder(prefix, index)
	}
	var n atomic.Int64
	var mu sync.Mutex
	var first error // the first marker that could not be read
	st := s.db.NewStream()
	st.Prefix = []byte{prefix}
	st.NumGo = runtime.GOMAXPROCS(0)
	st.LogPrefix = "state: load the postings index"
	st.KeyToList = func(_ []byte, it *badger.Iterator) (*pb.KVList, error) {
		item := it.Item() // the newest version of the key
		if item.IsDeletedOrExpired() {
			return nil, nil
		}
		docs, err := index(item)
		if err != nil {
			mu.Lock()
			first = cmp.Or(first, err)
			mu.Unlock()
			return nil, err // Stream only logs it
		}
		n.Add(int64(docs))
		return nil, nil
	}
	st.Send = func(*z.Buffer) error { return nil } // KeyToList returns nothing to send
	err = st.Orchestrate(context.Background())
	return n.Load(), cmp.Or(first, err)
}

// indexKeysInOrder is indexKeys on one iterator.
func (s *Store) indexKeysInOrder(prefix byte, index func(*badger.Item) (int, error)) (docs int64, err error) {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefix}}) // newest versions, none deleted or expired
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		n, err := index(it.Item())
		if err != nil {
			return docs, err
		}
		docs += int64(n)
	}
	return docs, nil
}

// indexMarker adds the postings a marker lists, and returns how many
// documents' published postings it lists.
func (s *Store) indexMarker(item *badger.Item) (docs int, err error) {
	key := item.Key()
	if len(key) != markerKeyLen {
		return 0, fmt.Errorf("%w: marker key %x has %d bytes", ErrCorrupt, key, len(key))
	}
	err = item.Value(func(v []byte) error {
		var buf [16]posting // a default sketch's 11, without allocating
		var ok bool
		if docs, ok = eachMarked(v, buf[:0], s.addPostings); !ok {
			return fmt.Errorf("%w: marker %d (%d bytes) is not a list of documents' index keys",
				ErrCorrupt, binary.BigEndian.Uint64(key[1:]), len(v))
		}
		return nil
	})
	return docs, err
}

// indexDocMarker adds the postings a document's published marker of format
// 3 lists: its index keys, 8 bytes each.
func (s *Store) indexDocMarker(item *badger.Item) (docs int, err error) {
	key := item.Key()
	if len(key) != publishedKeyLen {
		return 0, fmt.Errorf("%w: published marker key %x has %d bytes", ErrCorrupt, key, len(key))
	}
	seq := seqSuffix(key)
	return 1, item.Value(func(v []byte) error {
		if len(v)%8 != 0 {
			return fmt.Errorf("%w: published marker of document %d has %d bytes", ErrCorrupt, seq, len(v))
		}
		var buf [16]posting // a default sketch's 11, without allocating
		ps := buf[:0]
		for i := 0; i < len(v); i += 8 {
			ps = append(ps, posting{key: binary.BigEndian.Uint64(v[i:]), seq: seq})
		}
		s.addPostings(ps)
		return nil
	})
}

// indexReplayKey adds the replay posting a replay key of format 1 to 4
// holds: the key's hash (replayIndexKey) → the seq in its value.
func (s *Store) indexReplayKey(item *badger.Item) (docs int, err error) {
	seq, err := seqValue(item)
	if err != nil {
		return 0, err
	}
	s.addReplay(keyHash(item.Key()), seq)
	return 1, nil
}

// indexLegacy adds the postings a state of format 1 or 2 kept as keys: a
// group's head ('H' hash, 'B' band key → its smallest seq) and its other
// postings ('h' hash seq, 'b' band key seq), under the index key of the head.
func (s *Store) indexLegacy(txn *badger.Txn) (n int64, err error) {
	for _, g := range []struct {
		head, more       byte
		headLen, moreLen int
	}{
		{prefixHashHead, prefixHash, hashHeadLen, hashKeyLen},
		{prefixBucketHead, prefixPosting, bucketLen, postingKeyLen},
	} {
		err = scanKeys(txn, g.head, g.headLen, true, func(item *badger.Item) error {
			seq, err := seqValue(item)
			if err == nil {
				s.addPosting(keyHash(item.Key()), seq)
				n++
			}
			return err
		})
		if err != nil {
			return n, err
		}
		var head [bucketLen]byte
		err = scanKeys(txn, g.more, g.moreLen, false, func(item *badger.Item) error {
			key := item.Key()
			s.addPosting(keyHash(append(append(head[:0], g.head), key[1:len(key)-8]...)), seqSuffix(key))
			n++
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// scanKeys calls fn for every key txn sees under prefix, each of keyLen
// bytes (a key of another length is ErrCorrupt), with its value read ahead
// if values is set, and stops at the first error.
func scanKeys(txn *badger.Txn, prefix byte, keyLen int, values bool, fn func(*badger.Item) error) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefix}, PrefetchValues: values})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		if key := it.Item().Key(); len(key) != keyLen {
			return fmt.Errorf("%w: key %x has %d bytes, want %d", ErrCorrupt, key, len(key), keyLen)
		}
		if err := fn(it.Item()); err != nil {
			return err
		}
	}
	return nil
}

// addPostings adds postings to their index (replay postings to the replay
// index), touching each group of their keys in its index first
// (touchGroup).
func (s *Store) addPostings(ps []posting) {
	var keys, replays [touchGroup]uint64
	for lo := 0; lo < len(ps); lo += touchGroup {
		group := ps[lo:min(lo+touchGroup, len(ps))]
		n, r := 0, 0
		for _, p := range group {
			if p.replay {
				replays[r] = p.key
				r++
			} else {
				keys[n] = p.key
				n++
			}
		}
		s.index.Touch(keys[:n])
		s.replays.Touch(replays[:r])
		for _, p := range group {
			if p.replay {
				s.addReplay(p.key, p.seq)
			} else {
				s.addPosting(p.key, p.seq)
			}
		}
	}
}

// addPosting adds one published posting to the index.
func (s *Store) addPosting(key, seq uint64) { s.countDropped(s.index.Add(key, seq), seq) }

// addReplay adds one replay posting to the replay index.
func (s *Store) addReplay(key, seq uint64) { s.countDropped(s.replays.Add(key, seq), seq) }

// countDropped counts the n postings an index dropped to keep a shard's
// seqs within 2³¹ of each other (never, in practice), saying so once.
func (s *Store) countDropped(n int, seq uint64) {
	if n > 0 && s.indexDropped.Add(int64(n)) == int64(n) {
		s.log.Warn("the postings index dropped postings more than 2^31 sequence numbers older than the newest (see package state/postings)",
			zap.Int("postings", n), zap.Uint64("seq", seq))
	}
}

// sweepInterval is how often a store with a TTL looks for the oldest live
// record, which lookups start from, and drops expired postings from the
// index once a good share of them has expired.
const sweepInterval = time.Second

// startSweep starts the loop that follows expiry, for a store with a TTL.
func (s *Store) startSweep() {
	if s.opt.TTL > 0 {
		s.sweeper = every(sweepInterval, func(<-chan struct{}) { s.sweep(false) })
	}
}

// addLive adds the postings of a write to a store with a TTL. A write of a
// document below the newest seq (stream/shard's applyFinal stages again a
// record it has just found) may come after that record expired and a
// sweep passed it; liveFrom, which would hide it from lookups, then comes
// down to its seq. That case takes sweepMu, with the postings added under
// it: a sweep that read the oldest record before the write committed has
// finished (and dropped what it would) before they are added, and any
// later one finds the record live. Writes of new documents, above every
// stored seq, add theirs without waiting for a sweep.
func (s *Store) addLive(ps []posting) {
	lo := uint64(math.MaxUint64)
	for _, p := range ps {
		lo = min(lo, p.seq)
	}
	if lo >= s.stored.Load() {
		s.addPostings(ps)
		return
	}
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	if lo < s.liveFrom.Load() {
		s.liveFrom.Store(lo)
	}
	s.addPostings(ps)
}

// sweep raises liveFrom to the oldest stored record, so that lookups skip
// the postings of expired documents rather than spend their per-bucket
// reads (MaxBucket) on them, and drops those postings from the indexes once
// they are an eighth of what they have held since the last drop (or always,
// with force). Every record below liveFrom has expired, and it stays so:
// a document written from now on has a larger seq (the single writer stores
// seqs in ascending order), or was written before (stream/shard's
// applyFinal stages again a record it has just found) and then addLive
// lowers liveFrom to it if a sweep has passed it meanwhile.
func (s *Store) sweep(force bool) {
	if s.enter() != nil {
		return
	}
	defer s.leave()
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	lo, ok := s.firstLiveSeq()
	if !ok {
		return
	}
	raise(&s.liveFrom, lo)
	if lo <= s.swept || (!force && lo-s.swept < (s.stored.Load()-s.swept)/8) {
		return
	}
	start := time.Now()
	n := s.index.DropBelow(lo) + s.replays.DropBelow(lo)
	s.swept = lo
	s.log.Debug("expired postings dropped", zap.Int("postings", n), zap.Uint64("below_seq", lo),
		zap.Duration("took", time.Since(start)))
}
