package state

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state/postings"
)

// loadIndex builds the in-memory index of postings from what the database
// holds: each published document's marker, which lists its index keys, and
// the posting keys of states written before format 3. A reader finds
// nothing until it is built, so Open waits for it.
func (s *Store) loadIndex() error {
	start := time.Now()
	s.index = postings.New()
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	docs, err := s.indexPublished(txn)
	if err != nil {
		return fmt.Errorf("load the postings index: %w", err)
	}
	legacy, err := s.indexLegacy(txn)
	if err != nil {
		return fmt.Errorf("load the postings index from format-2 keys: %w", err)
	}
	s.log.Info("postings index loaded", zap.Int64("documents", docs), zap.Int64("format2_postings", legacy),
		zap.Int("postings", s.index.Len()), zap.Int64("bytes", s.index.Bytes()), zap.Duration("took", time.Since(start)))
	return nil
}

// indexPublished adds the postings every published marker lists.
func (s *Store) indexPublished(txn *badger.Txn) (docs int64, err error) {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixPublished}, PrefetchValues: true, PrefetchSize: 256})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		seq := seqSuffix(item.Key())
		err := item.Value(func(v []byte) error {
			if len(v)%8 != 0 {
				return fmt.Errorf("%w: published marker of document %d has %d bytes", ErrCorrupt, seq, len(v))
			}
			for i := 0; i < len(v); i += 8 {
				if err := s.index.Add(binary.BigEndian.Uint64(v[i:]), seq); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return docs, err
		}
		docs++
	}
	return docs, nil
}

// indexLegacy adds the postings a state of format 1 or 2 kept as keys: a
// group's head ('H' hash, 'B' band key → its smallest seq) and its other
// postings ('h' hash seq, 'b' band key seq), under the index key of the head.
func (s *Store) indexLegacy(txn *badger.Txn) (n int64, err error) {
	for _, prefix := range []byte{prefixHashHead, prefixBucketHead} {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefix}, PrefetchValues: true})
		for it.Rewind(); it.Valid() && err == nil; it.Next() {
			var seq uint64
			if seq, err = seqValue(it.Item()); err == nil {
				err = s.index.Add(keyHash(it.Item().Key()), seq)
				n++
			}
		}
		it.Close()
		if err != nil {
			return n, err
		}
	}
	for _, p := range []struct {
		prefix, head byte
		keyLen       int
	}{{prefixHash, prefixHashHead, hashKeyLen}, {prefixPosting, prefixBucketHead, postingKeyLen}} {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{p.prefix}})
		var head [bucketLen]byte
		for it.Rewind(); it.Valid() && err == nil; it.Next() {
			key := it.Item().Key()
			if len(key) != p.keyLen {
				err = fmt.Errorf("%w: posting key %x has %d bytes, want %d", ErrCorrupt, key, len(key), p.keyLen)
				break
			}
			h := append(append(head[:0], p.head), key[1:len(key)-8]...)
			err = s.index.Add(keyHash(h), seqSuffix(key))
			n++
		}
		it.Close()
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// sweepInterval is how often a store with a TTL drops the postings of
// expired documents from the index: an eighth of the TTL, between a second
// and a minute, so the index holds at most a little more than the TTL's
// documents.
func sweepInterval(ttl time.Duration) time.Duration {
	return min(max(ttl/8, time.Second), time.Minute)
}

// startSweep starts the goroutine that drops expired postings, for a store
// with a TTL; Close stops it.
func (s *Store) startSweep() {
	if s.opt.TTL <= 0 {
		return
	}
	s.sweepStop = make(chan struct{})
	s.sweepDone = make(chan struct{})
	go func() {
		defer close(s.sweepDone)
		t := time.NewTicker(sweepInterval(s.opt.TTL))
		defer t.Stop()
		for {
			select {
			case <-s.sweepStop:
				return
			case <-t.C:
				s.sweep()
			}
		}
	}()
}

func (s *Store) stopSweep() {
	if s.sweepStop != nil {
		close(s.sweepStop)
		<-s.sweepDone
	}
}

// sweep drops from the index the postings of every seq below the oldest
// stored record: their records have expired. It runs beside the writer: a
// document written from now on has a seq at least that old record's (the
// single writer stores seqs in ascending order, and a document published
// again was found by its record), so none of its postings is dropped.
func (s *Store) sweep() {
	if s.enter() != nil {
		return
	}
	defer s.leave()
	lo, ok := s.firstLiveSeq()
	if !ok || lo <= s.swept {
		return
	}
	start := time.Now()
	n := s.index.DropBelow(lo)
	s.swept = lo
	s.log.Debug("expired postings dropped", zap.Int("postings", n), zap.Uint64("below_seq", lo),
		zap.Int64("index_bytes", s.index.Bytes()), zap.Duration("took", time.Since(start)))
}
