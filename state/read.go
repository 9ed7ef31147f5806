package state

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// Replayed returns the stored document with this replay key and content hash, if
// any. The replay key is the document's Source, or its ID when Source was empty.
// If the pair was stored more than once, the record of the largest seq wins:
// the last Put's, as the single writer's seqs ascend.
func (s *Store) Replayed(key string, contentHash uint64) (Doc, bool, error) {
	if err := s.enter(); err != nil {
		return Doc{}, false, err
	}
	defer s.leave()
	d, ok, err := s.replayed(key, contentHash)
	if err != nil {
		return Doc{}, false, fmt.Errorf("look up replay of %q: %w", key, err)
	}
	return d, ok, nil
}

// replayWindow is how many of a replay index key's seqs replayed holds
// without allocating: almost always there is one, or none (more when the
// pair was Put again, or another shares its slot).
const replayWindow = 4

// replayed reads the replay index key's seqs, all of them, and returns the
// record of the largest whose replay key and content hash are these (a
// posting of another pair may share the index slot). As in exact, the index
// is read before the snapshot is taken.
func (s *Store) replayed(key string, hash uint64) (Doc, bool, error) {
	var buf [replayWindow]uint64
	seqs, _ := s.replays.Lookup(buf[:0], replayIndexKey(key, hash), s.liveFrom.Load(), math.MaxUint64, math.MaxInt)
	if len(seqs) == 0 {
		return Doc{}, false, nil
	}
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	for i := len(seqs) - 1; i >= 0; i-- {
		d, ok, err := getDoc(s.db, txn, seqs[i])
		if err != nil || (ok && d.ContentHash == hash && d.replayKey() == key) {
			return d, ok, err
		}
	}
	return Doc{}, false, nil
}

// Exact returns the earliest stored document with this content hash and
// Seq < before. A store opened with Options.NoExactIndex refuses it.
func (s *Store) Exact(contentHash uint64, before uint64) (Doc, bool, error) {
	if s.opt.NoExactIndex {
		return Doc{}, false, errNoExactIndex
	}
	if err := s.enter(); err != nil {
		return Doc{}, false, err
	}
	defer s.leave()
	d, ok, err := s.exact(contentHash, before)
	if err != nil {
		return Doc{}, false, fmt.Errorf("look up content hash %016x: %w", contentHash, err)
	}
	return d, ok, nil
}

var errNoExactIndex = errors.New("state: Exact on a store opened with NoExactIndex (it keeps no content-hash group)")

// exactWindow is how many of a content hash's seqs exact reads from the
// index at a time: almost always the first is the answer.
const exactWindow = 4

// exact reads the content hash's group in the index, smallest seq first, and
// returns the first whose record is stored and holds this hash (another
// hash's group that shares the index slot is skipped). The index is read
// before the snapshot is taken, so every record a posting leads to is in it.
func (s *Store) exact(hash, before uint64) (Doc, bool, error) {
	key := groupKey(hash)
	var buf [exactWindow]uint64
	seqs, more := s.index.Lookup(buf[:0], key, s.liveFrom.Load(), before, exactWindow)
	if len(seqs) == 0 {
		return Doc{}, false, nil
	}
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	for {
		for _, seq := range seqs {
			d, ok, err := getDoc(s.db, txn, seq)
			if err != nil || (ok && d.ContentHash == hash) {
				return d, ok, err
			}
		}
		if !more {
			return Doc{}, false, nil
		}
		// Rare: the earliest records expired or belong to another hash.
		seqs, more = s.index.Lookup(seqs[:0], key, seqs[len(seqs)-1]+1, before, exactWindow)
	}
}

// Candidates appends to dst the documents that share at least one band key with
// bands (band key i is looked up under band index i; with Options.SetKeys every
// key is looked up under SetBand) and have Seq < before:
// distinct, in ascending Seq order, with their Sketch, at most MaxCandidates of
// them. When more match, it keeps those sharing the most keys with bands (the
// earliest among equals): a near copy shares many bands with its original, and
// must not be cut by a crowd of earlier documents that share one hot key with
// it. From each bucket it reads the MaxBucket earliest postings below before, so
// documents stored later with larger seqs never change the answer for a given
// before. Capped reports which caps cut the answer. On error dst is returned as it
// was passed.
func (s *Store) Candidates(dst []Doc, bands []uint64, before uint64) ([]Doc, Capped, error) {
	if !s.opt.SetKeys && len(bands) > MaxBands {
		return dst, Capped{}, fmt.Errorf("look up candidates: %d bands, at most %d", len(bands), MaxBands)
	}
	if err := s.enter(); err != nil {
		return dst, Capped{}, err
	}
	defer s.leave()
	if before <= 1 {
		return dst, Capped{}, nil
	}
	var buf [256]uint64
	seqs, capped := s.postings(buf[:0], bands, before)
	if len(seqs) == 0 {
		return dst, capped, nil
	}
	// Taken after the index was read: every record a posting leads to is in it.
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	slices.Sort(seqs)
	ranked := distinct(seqs) > s.opt.MaxCandidates
	if ranked {
		seqs = byKeysShared(seqs)
	} else {
		seqs = slices.Compact(seqs)
	}
	out, cut, err := s.fetch(txn, dst, seqs)
	if err != nil {
		return dst, Capped{}, fmt.Errorf("look up candidates: %w", err)
	}
	if ranked {
		slices.SortFunc(out[len(dst):], func(a, b Doc) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	capped.Candidates = cut
	return out, capped, nil
}

// distinct counts the distinct values of a sorted slice.
func distinct(sorted []uint64) int {
	n := 0
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			n++
		}
	}
	return n
}

// byKeysShared turns the sorted seqs of a lookup, one per posting that
// matched, into the distinct seqs ordered by postings matched, most first,
// then by seq. It reuses seqs.
func byKeysShared(seqs []uint64) []uint64 {
	type counted struct {
		seq uint64
		n   int
	}
	cs := make([]counted, 0, len(seqs))
	for i, v := range seqs {
		if i > 0 && v == seqs[i-1] {
			cs[len(cs)-1].n++
		} else {
			cs = append(cs, counted{v, 1})
		}
	}
	slices.SortFunc(cs, func(a, b counted) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	seqs = seqs[:len(cs)]
	for i, c := range cs {
		seqs[i] = c.seq
	}
	return seqs
}

// keyBand is the band index of key i of a document: i, or SetBand for set keys.
func (s *Store) keyBand(i int) int {
	if s.opt.SetKeys {
		return SetBand
	}
	return i
}

// postings appends to seqs the seqs below before listed in the buckets of
// bands in the in-memory index, at most MaxBucket per bucket, the earliest
// not known to have expired (liveFrom).
func (s *Store) postings(seqs, bands []uint64, before uint64) ([]uint64, Capped) {
	var capped Capped
	from := s.liveFrom.Load()
	var keys [touchGroup]uint64
	for lo := 0; lo < len(bands); lo += touchGroup {
		group := keys[:min(touchGroup, len(bands)-lo)]
		for i := range group {
			group[i] = bucketKey(s.keyBand(lo+i), bands[lo+i])
		}
		s.index.Touch(group)
		for _, key := range group {
			var cut bool
			seqs, cut = s.index.Lookup(seqs, key, from, before, s.opt.MaxBucket)
			if cut {
				capped.Buckets++
			}
		}
	}
	return seqs, capped
}

// touchGroup is how many keys the state touches in the index at once
// (postings.Index.Touch) before it looks them up or adds them: enough for
// the CPU to overlap their cache misses, few enough that they are all still
// in the cache when their turn comes.
const touchGroup = 32

// fetch appends the records of seqs to dst, skipping missing ones, until
// MaxCandidates are found; cut reports that seqs were left unread.
func (s *Store) fetch(txn *badger.Txn, dst []Doc, seqs []uint64) (out []Doc, cut bool, err error) {
	found := 0
	for i, seq := range seqs {
		if found == s.opt.MaxCandidates {
			return dst, i < len(seqs), nil
		}
		d, ok, err := getDoc(s.db, txn, seq)
		if err != nil {
			return dst, false, err
		}
		if ok {
			dst = append(dst, d)
			found++
		}
	}
	return dst, false, nil
}

// Get returns the document with this seq.
func (s *Store) Get(seq uint64) (Doc, bool, error) {
	if err := s.enter(); err != nil {
		return Doc{}, false, err
	}
	defer s.leave()
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	d, ok, err := getDoc(s.db, txn, seq)
	if err != nil {
		return Doc{}, false, fmt.Errorf("get document %d: %w", seq, err)
	}
	return d, ok, nil
}

// seqValue reads the seq held by a replay key of formats 1 to 4, or a
// format-2 group head (decodeSeqValue).
func seqValue(item *badger.Item) (seq uint64, err error) {
	err = item.Value(func(v []byte) error {
		var ok bool
		if seq, ok = decodeSeqValue(v); !ok {
			return fmt.Errorf("%w: bad seq value %x under %q", ErrCorrupt, v, item.Key())
		}
		return nil
	})
	return seq, err
}

// getDoc reads and decodes the record of seq; a missing record is not an error.
func getDoc(db *badger.DB, txn *badger.Txn, seq uint64) (Doc, bool, error) {
	var d Doc
	_, ok, err := readRecord(db, txn, seq, func(v []byte) (err error) {
		d, err = decodeRecord(seq, v)
		return err
	})
	return d, ok && err == nil, err
}

// afterRecordGet, when set (by tests), runs between the read of a record's
// key and the read of its value: the window in which a value-log GC can
// delete the file the value is in.
var afterRecordGet func()

// readRecord passes fn the record of seq as txn sees it, and reports whether
// there is one and when it expires (Badger's ExpiresAt). Records live in the
// value log, and Badger's value-log GC deletes a file once it has moved the
// file's live records, unless an iterator is open: a point read under a transaction begun before the move
// then finds the file gone, and Badger logs the failed read and hands back
// an empty value. A record is never empty, so an empty one is read again in
// a fresh transaction, which sees the moved copy (or none, if it expired).
func readRecord(db *badger.DB, txn *badger.Txn, seq uint64, fn func(v []byte) error) (expiresAt uint64, found bool, err error) {
	var kb [docKeyLen]byte
	key := appendDocKey(kb[:0], seq)
	for fresh := false; ; fresh = true {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		if afterRecordGet != nil {
			afterRecordGet()
		}
		gone := false
		err = item.Value(func(v []byte) error {
			if gone = len(v) == 0; gone {
				return nil
			}
			return fn(v)
		})
		switch {
		case err != nil || !gone:
			return item.ExpiresAt(), err == nil, err
		case fresh:
			return 0, false, fmt.Errorf("%w: the record of document %d read empty twice", ErrCorrupt, seq)
		}
		txn = db.NewTransaction(false)
		defer txn.Discard()
	}
}

// Scan calls fn for every stored document in Seq order and stops at the first
// error fn returns, which Scan returns as is. It reads one snapshot: documents Put
// during the scan are not seen. fn may call other methods of the Store (SetCluster
// included) but not Close, which waits for Scan to return.
func (s *Store) Scan(fn func(Doc) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{
		Prefix: []byte{prefixDoc}, PrefetchValues: true, PrefetchSize: 64,
	})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		seq := seqSuffix(item.Key())
		var d Doc
		err := item.Value(func(v []byte) (err error) {
			d, err = decodeRecord(seq, v)
			return err
		})
		if err != nil {
			return fmt.Errorf("scan documents: %w", err)
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// FindByIDOrURL scans the stored documents (Scan) for each of keys, an id
// or a URL, and returns, at the key's index, the first document in Seq
// order with that id or URL, or nil where none has it.
func (s *Store) FindByIDOrURL(keys ...string) ([]*Doc, error) {
	found := make([]*Doc, len(keys))
	err := s.Scan(func(d Doc) error {
		for i, k := range keys {
			if found[i] == nil && (d.ID == k || (d.URL != "" && d.URL == k)) {
				found[i] = &d
			}
		}
		return nil
	})
	return found, err
}
