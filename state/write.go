package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dgraph-io/badger/v4"
)

// Put stages and publishes the documents in one step: Stage and Publish
// together, for callers with no output to wait for between them.
func (s *Store) Put(docs []Doc) error { return s.write("put", docs, stagePart|publishPart, nil) }

// Apply is Put for a shard of the sharded index, whose store is rebuilt from a
// log: it stores docs (records and postings) and records next, the log
// position after the last record applied, in the transaction that stores the
// last of them (alone, when docs is empty). A crash leaves a prefix of docs
// stored and the old position, so the log is re-read from there and its
// records, found by Replayed, are not stored twice. Applied reads it back.
func (s *Store) Apply(docs []Doc, next int64) error {
	return s.write("apply", docs, stagePart|publishPart, &next)
}

// Applied returns the log position recorded by the last Apply, false before the first.
func (s *Store) Applied() (int64, bool, error) {
	if err := s.enter(); err != nil {
		return 0, false, err
	}
	defer s.leave()
	var next uint64
	var ok bool
	err := s.db.View(func(txn *badger.Txn) (err error) {
		next, ok, err = getUint(txn, metaApplied)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("read applied log position: %w", err)
	}
	return int64(next), ok, nil
}

// Stage stores each document's record and replay posting but not its
// published postings: a staged document is found by Replayed and Get, never
// by Exact or Candidates.
// The pipeline stages a batch's decisions before emitting them, so a replayed
// record always finds the verdict it was given, and publishes them after the
// output is acknowledged, so no document nobody saw can become another's
// original. Documents should come in ascending Seq order (see the package
// documentation). Stage raises Reserve above every seq it stores.
func (s *Store) Stage(docs []Doc) error { return s.write("stage", docs, stagePart, nil) }

// Publish adds staged documents to their content-hash group and band buckets
// (Bands[i] under band index i), making them findable by Exact and Candidates.
// Publishing a document again is harmless.
func (s *Store) Publish(docs []Doc) error { return s.write("publish", docs, publishPart, nil) }

// Parts of a document that a write stores.
const (
	stagePart   = 1 << iota // record and replay posting
	publishPart             // content-hash and band postings
)

// write stores the given parts of docs; all keys written expire after TTL if one
// is set. Each document's record and postings go into one Badger transaction
// (its postings in the transaction's marker), as many documents per
// transaction as fit, and each transaction also persists the next sequence
// number. A crash or error mid-write therefore leaves a prefix of docs fully
// written and the rest absent, never a posting without its record (when both
// parts are written together) and never half a document. A non-nil applied is
// written with the last transaction (see Apply).
func (s *Store) write(op string, docs []Doc, parts int, applied *int64) error {
	if len(docs) == 0 && applied == nil {
		return nil
	}
	if err := checkDocs(docs, s.opt.SetKeys); err != nil {
		return fmt.Errorf("%s %d documents: %w", op, len(docs), err)
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	w := s.newBatch(docs)
	defer w.finish()
	for i := range docs {
		if err := w.add(&docs[i], parts); err != nil {
			return fmt.Errorf("%s document %d (%q): %w", op, docs[i].Seq, docs[i].ID, err)
		}
	}
	if applied != nil {
		if w.txn == nil {
			w.txn = s.db.NewTransaction(true)
		}
		if err := w.txn.Set(metaKey(metaApplied), binary.BigEndian.AppendUint64(nil, uint64(*applied))); err != nil {
			return fmt.Errorf("%s: record log position %d: %w", op, *applied, err)
		}
	}
	if err := w.commit(); err != nil {
		return fmt.Errorf("%s %d documents: %w", op, len(docs), err)
	}
	return nil
}

func checkDocs(docs []Doc, setKeys bool) error {
	for i := range docs {
		d := &docs[i]
		if d.Seq == 0 {
			return fmt.Errorf("document %q has no sequence number", d.ID)
		}
		if !setKeys && len(d.Bands) > MaxBands {
			return fmt.Errorf("document %d has %d bands, at most %d", d.Seq, len(d.Bands), MaxBands)
		}
	}
	return nil
}

// batch writes documents in as few transactions as fit, never splitting one.
type batch struct {
	s         *Store
	expires   uint64         // ExpiresAt of every key written, 0 for none
	keys      []byte         // arena for keys
	vals      []byte         // arena for values
	entries   []badger.Entry // arena; the open txn holds pointers into it
	pending   []posting      // postings queued, for the index once their txn commits
	inTxn     int            // how many of pending belong to the open txn
	txn       *badger.Txn    // open transaction, nil if none
	count     int64          // entries in txn, as badger counts them
	size      int64          // bytes in txn, as badger estimates them
	marker    int64          // the most bytes txn's marker will hold (markerDocLen)
	maxSeq    uint64         // largest seq in txn
	docs      uint64         // records in txn
	docsInTxn int            // documents with entries in txn
}

// Per-transaction entries besides the documents': meta "seq", "docs" and
// (Apply) "applied", 8-byte values, and the marker, whose value
// fit counts document by document (markerDocLen).
const (
	metaEntries = 4
	metaBytes   = metaEntries * (1 + 8 + 8 + entryOverhead)
	// entryOverhead is what badger's Txn size estimate adds to an entry's
	// bytes: meta bytes plus the version appended to the key. Badger counts a
	// value bound for the value log (valueThreshold) as a 12-byte pointer,
	// and fit counts it whole: an upper bound, so a transaction may commit
	// sooner than Badger would need it to.
	entryOverhead = 2 + 10
)

func (s *Store) newBatch(docs []Doc) *batch {
	var nkeys, nvals, nentries, npostings int
	for i := range docs {
		d := &docs[i]
		nentries++
		nkeys += docKeyLen
		nvals += recordLen(d) + markerReplayLen + markerDocLen(len(d.Bands)+1)
		npostings += 2 + len(d.Bands)
	}
	w := &batch{
		s:       s,
		keys:    reuse(s.arenas.keys, nkeys),
		vals:    reuse(s.arenas.vals, nvals),
		entries: reuse(s.arenas.entries, nentries),
		pending: reuse(s.arenas.pending, npostings),
	}
	if s.opt.TTL > 0 {
		w.expires = expiryOf(time.Now().Add(s.opt.TTL))
	}
	return w
}

// batchArenas are a batch's buffers, kept by the Store from one write to the
// next (allocated afresh, they were 3.2 KB a document, the pipeline's largest
// allocation, in the heap profile of a 1M-document bench run): once a
// transaction has committed Badger holds no reference to them — it copies
// keys and values into its memtable and log, and gives the entries keys of
// its own. (Were db.Subscribe ever used, its publisher would read the entries
// after Commit returns, and this reuse would have to go.)
type batchArenas struct {
	keys, vals []byte
	entries    []badger.Entry
	pending    []posting // the postings for the index, added once committed
}

// maxKeptArenas bounds the bytes of buffers a Store keeps between writes, so
// that one unusually large write does not stay allocated.
const maxKeptArenas = 8 << 20

// reuse returns buf emptied if it can hold n, else a new slice that can.
func reuse[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, 0, n)
	}
	return buf[:0]
}

// expiryOf is Badger's expiry (whole unix seconds) for an entry that must live
// until t: rounded up, so a key never expires before its TTL is over.
func expiryOf(t time.Time) uint64 {
	return uint64((t.UnixNano() + int64(time.Second) - 1) / int64(time.Second))
}

// add queues the given parts of d: its record and replay posting, its
// published postings; and commits the open transaction first if they would
// not fit in it. The postings go into the transaction's marker when it
// commits, and into the in-memory indexes once it has.
func (w *batch) add(d *Doc, parts int) error {
	if w.txn == nil {
		w.txn = w.s.db.NewTransaction(true)
	}
	start := len(w.entries)
	var marker int
	if parts&stagePart != 0 {
		w.push(appendDocKey(w.keys, d.Seq), appendRecord(w.vals, d), w.expires)
		w.pending = append(w.pending, posting{key: replayIndexKey(d.replayKey(), d.ContentHash), seq: d.Seq, replay: true})
		marker = markerReplayLen
	}
	if parts&publishPart != 0 {
		marker += w.publish(d)
	}
	return w.fit(w.entries[start:], marker, d.Seq, parts&stagePart != 0)
}

// publish queues d's published postings — its content-hash group unless
// Options.NoExactIndex, and its band buckets — and returns the most bytes
// they add to the marker.
func (w *batch) publish(d *Doc) int {
	n := len(w.pending)
	if !w.s.opt.NoExactIndex {
		w.pending = append(w.pending, posting{key: groupKey(d.ContentHash), seq: d.Seq})
	}
	for i, key := range d.Bands {
		w.pending = append(w.pending, posting{key: bucketKey(w.s.keyBand(i), key), seq: d.Seq})
	}
	return markerDocLen(len(w.pending) - n)
}

// fit adds entries (all of one document) and marker bytes of its postings
// to the open transaction, committing it first if they would not fit: in
// Badger's batch, or in the largest value it takes (maxMarker).
// record says whether the entries include its record.
func (w *batch) fit(entries []badger.Entry, marker int, seq uint64, record bool) error {
	size := int64(marker)
	for i := range entries {
		size += int64(len(entries[i].Key) + len(entries[i].Value) + entryOverhead)
	}
	db := w.s.db
	if w.count+int64(len(entries))+metaEntries >= db.MaxBatchCount() ||
		w.size+size+metaBytes >= db.MaxBatchSize() ||
		w.marker+int64(marker) > w.s.maxMarker() {
		if w.docsInTxn == 0 {
			return fmt.Errorf("%d entries of %d bytes exceed one transaction", len(entries), size)
		}
		if err := w.commit(); err != nil {
			return err
		}
	}
	w.marker += int64(marker)
	return w.set(entries, size, seq, record)
}

// maxMarker is the largest value Badger takes, so the most bytes a
// marker may hold: a value-log file, and in memory (no value
// log) the value threshold.
func (s *Store) maxMarker() int64 {
	if s.opt.InMemory {
		return thresholdOf(s.opt)
	}
	return valueLogFileSize
}

// push appends an entry whose key and value were just appended to the arenas
// (pass w.vals for an empty value).
func (w *batch) push(keys, vals []byte, expiresAt uint64) {
	key := keys[len(w.keys):len(keys):len(keys)]
	var val []byte
	if len(vals) > len(w.vals) {
		val = vals[len(w.vals):len(vals):len(vals)]
	}
	w.keys, w.vals = keys, vals
	w.entries = append(w.entries, badger.Entry{Key: key, Value: val, ExpiresAt: expiresAt})
}

func (w *batch) set(entries []badger.Entry, size int64, seq uint64, record bool) error {
	if w.txn == nil {
		w.txn = w.s.db.NewTransaction(true)
	}
	for i := range entries {
		if err := w.txn.SetEntry(&entries[i]); err != nil {
			return err
		}
	}
	w.count += int64(len(entries))
	w.size += size
	w.maxSeq = max(w.maxSeq, seq)
	w.docsInTxn++
	w.inTxn = len(w.pending)
	if record {
		w.docs++
	}
	return nil
}

// commit adds the metadata to the open transaction, commits it and publishes the
// new counters.
func (w *batch) commit() error {
	if w.txn == nil {
		return nil
	}
	s := w.s
	next := max(s.stored.Load(), w.maxSeq+1)
	written := s.written.Load() + w.docs
	be := binary.BigEndian
	err := errors.Join(
		w.txn.Set(metaKey(metaSeq), be.AppendUint64(nil, next)),
		w.txn.Set(metaKey(metaDocs), be.AppendUint64(nil, written)),
	)
	marked := w.inTxn > 0
	if err == nil && marked {
		err = w.txn.SetEntry(&badger.Entry{
			Key:       appendMarkerKey(nil, s.markers),
			Value:     appendMarker(w.vals[len(w.vals):], w.pending[:w.inTxn]),
			ExpiresAt: w.expires,
		})
	}
	if err == nil {
		err = w.txn.Commit()
	}
	w.txn.Discard()
	w.txn = nil
	if marked {
		// Even if Commit failed: it may have written the marker (a failed
		// WAL sync), and a number skipped costs nothing.
		s.markers++
	}
	if err != nil {
		return err
	}
	// Only now are the transaction's postings readable: every record and
	// marker they lead to is committed before a reader can find them. The
	// postings of a document that did not fit stay for the next one.
	if ps := w.pending[:w.inTxn]; s.opt.TTL > 0 {
		s.addLive(ps)
	} else {
		s.addPostings(ps)
	}
	w.pending = w.pending[:copy(w.pending, w.pending[w.inTxn:])]
	w.inTxn = 0
	s.stored.Store(next)
	s.written.Store(written)
	raise(&s.next, next)
	w.count, w.size, w.marker, w.maxSeq, w.docs, w.docsInTxn = 0, 0, 0, 0, 0, 0
	return nil
}

// finish discards the open transaction, if any, and keeps the buffers.
func (w *batch) finish() {
	w.discard()
	w.keep()
}

// keep leaves the batch's buffers to the next write, unless they are too
// large, with the entries cleared of what they point to.
func (w *batch) keep() {
	const entrySize = int(unsafe.Sizeof(badger.Entry{}))
	const postingSize = int(unsafe.Sizeof(posting{}))
	if cap(w.keys)+cap(w.vals)+cap(w.entries)*entrySize+cap(w.pending)*postingSize > maxKeptArenas {
		w.s.arenas = batchArenas{}
		return
	}
	clear(w.entries)
	w.s.arenas = batchArenas{keys: w.keys[:0], vals: w.vals[:0], entries: w.entries[:0], pending: w.pending[:0]}
}

func (w *batch) discard() {
	if w.txn != nil {
		w.txn.Discard()
		w.txn = nil
	}
	w.pending, w.inTxn = w.pending[:0], 0
}

// posting is one document's place under one index key: of the replay
// index (a replay posting), or of the index of published postings.
type posting struct {
	key, seq uint64
	replay   bool
}

// raise sets x to v if v is larger.
func raise(x *atomic.Uint64, v uint64) {
	for {
		old := x.Load()
		if old >= v || x.CompareAndSwap(old, v) {
			return
		}
	}
}
