package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state/postings"
)

// ErrClosed is returned by every method of a closed Store.
var ErrClosed = errors.New("state: closed")

// ErrNotFound is returned by SetCluster for a document that is not stored
// (never written, or expired).
var ErrNotFound = errors.New("state: document not found")

// formatVersion is the layout version stored under meta "format". Format 2
// (version-3 records, uvarint seq values) is one builds of format 1 cannot
// read; format 3 keeps postings in memory and a published
// marker per document on disk, which builds of format 2 would not find;
// format 4 a published marker per transaction, which builds of format 3
// would not find; format 5 keeps replay postings in memory and in the
// markers instead of replay keys, which builds of format 4 would not find.
// An older state is read as it is (its posting keys, replay keys and
// markers are loaded into the indexes too), and its marker becomes 5 at
// Open, so that an older build refuses it at start rather than missing what
// this one wrote.
const formatVersion = 5

// Doc is one stored document. Bands are written as postings only; documents read
// back from the store have Bands == nil.
type Doc struct {
	Seq         uint64    // assigned by Reserve; order of first insert
	ID          string    // record id
	Source      string    // where it was read (e.g. topic/partition/offset); replay key, "" → ID
	URL         string    // may be empty
	Time        time.Time // ingest time, stored as unix nanoseconds, read back in UTC
	ContentHash uint64    // hash of the cleaned text
	Verdict     uint8     // opaque to state: the stream's verdict code (1..n)
	Of          uint64    // seq of the earliest matching document, 0 if none
	OfID        string    // its id
	Similarity  float32   // similarity to Of
	Cluster     uint64    // cluster id (stream sets it; offline may rewrite)
	// OfTime and OfSource are the original's Time and Source, kept by the
	// shards of the sharded index, which order documents by them.
	OfTime   time.Time
	OfSource string
	// Pos is the document's place in a sharded filter's sequence log, and
	// OfPos its original's: the order the shards of the sharded index decide
	// in, and compare originals by across shards. 0 outside a shard.
	Pos, OfPos uint64
	// Provisional marks, in a shard of the sharded index, a document whose
	// stored cluster may still change: the shard has held its answer back,
	// or given it only for the joining front to correct. Once its answer
	// has gone out for good the cluster is fixed, and a replay repeats it.
	Provisional bool
	Sketch      []byte   // opaque encoded signature
	Bands       []uint64 // band keys; posting i is written under band index i
}

// Capped says which caps cut a Candidates answer, for metrics.
type Capped struct {
	Buckets    int  // buckets that held more than MaxBucket postings below before
	Candidates bool // more than MaxCandidates distinct documents matched
}

// Stats describes the size of a Store.
type Stats struct {
	Docs       uint64 // live documents, approximate
	LSMBytes   int64  // SSTable bytes (memtables and their logs excluded)
	VLogBytes  int64  // value-log bytes on disk
	Postings   int64  // published postings in the in-memory index (until swept, expired ones included)
	Replays    int64  // replay postings in the in-memory replay index, one a document staged (likewise)
	IndexBytes int64  // memory of the two indexes
}

// SketchMismatchError is returned by Open when the database was built with other
// sketch parameters than the caller's.
type SketchMismatchError struct{ Stored, Configured string }

func (e *SketchMismatchError) Error() string {
	return fmt.Sprintf("state: stored sketch %q differs from configured %q: "+
		"a state directory holds the sketches of one method and parameters; "+
		"configure the stored ones or use a new state directory", e.Stored, e.Configured)
}

// Store is a Badger database of documents and postings; see the package documentation.
type Store struct {
	db     *badger.DB
	opt    Options
	log    *zap.Logger
	sketch string // stored sketch version

	next    atomic.Uint64 // next Reserve
	stored  atomic.Uint64 // next seq as persisted: max(seq Put)+1
	written atomic.Uint64 // records Put, persisted as meta "docs"
	writeMu sync.Mutex    // serialises writes: Put, Stage, Publish, SetCluster(s)
	arenas  batchArenas   // the last write's buffers, for the next; guarded by writeMu
	markers uint64        // the next marker's number; guarded by writeMu

	// index holds every published document's postings (content-hash
	// group, band buckets), replays every staged document's replay
	// posting; loadIndex builds them at Open. With a TTL,
	// liveFrom is a lower bound of the live records' seqs, which lookups
	// start from (postings below it lead to expired records), and swept
	// the seq below which sweep has dropped the postings.
	index    *postings.Index
	replays  *postings.Index
	liveFrom atomic.Uint64
	sweepMu  sync.Mutex // guards swept
	swept    uint64
	sweeper  *loop // nil without a TTL
	// indexDropped counts postings the index dropped to keep a shard's
	// seqs within 2³¹ (package postings); it stays 0 in practice.
	indexDropped atomic.Int64

	mu     sync.Mutex // guards closed and active
	idle   sync.Cond  // signalled when active drops to 0 after close
	active int        // calls in progress
	closed bool

	closeOnce sync.Once
	closeErr  error
	gc        *loop // value-log GC; nil when none runs
	writeback *loop // the newest value-log file's writeback (Linux); nil when none runs
}

// Open opens (or creates) the database described by o.
func Open(o Options) (*Store, error) {
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("open state %s: %w", where(o), err)
	}
	if !o.InMemory {
		if err := removeEmptyLogs(o.Dir, o.Logger); err != nil {
			return nil, fmt.Errorf("open state %s: %w", where(o), err)
		}
		need, err := memtableForLogs(o.Dir)
		if err != nil {
			return nil, fmt.Errorf("open state %s: %w", where(o), err)
		}
		if need > o.MemtableBytes {
			o.Logger.Warn("memtable write-ahead logs left unflushed (a crash) were written with larger memtables: this open uses their size, the next one state.memtable_bytes",
				zap.Int64("memtable_bytes", need), zap.Int64("configured", o.MemtableBytes))
			o.MemtableBytes = need
		}
	}
	db, err := badger.Open(badgerOptions(o))
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", where(o), err)
	}
	s := &Store{db: db, opt: o, log: o.Logger}
	s.idle.L = &s.mu
	var raise bool
	err = db.Update(func(txn *badger.Txn) (err error) {
		raise, err = s.load(txn)
		return err
	})
	if err == nil {
		err = s.loadIndex()
	}
	if err == nil && raise { // only once this build has read all of it
		err = db.Update(func(txn *badger.Txn) error {
			return txn.Set(metaKey(metaFormat), binary.BigEndian.AppendUint64(nil, formatVersion))
		})
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open state %s: %w", where(o), err)
	}
	s.startGC()
	s.startSweep()
	s.startWriteback()
	return s, nil
}

func where(o Options) string {
	if o.InMemory {
		return "(in memory)"
	}
	return o.Dir
}

// load checks the stored format and sketch version, writing them on first
// open, and restores the sequence and document counters. raise says the
// state is of an earlier format, whose marker Open raises once it has
// loaded the index.
func (s *Store) load(txn *badger.Txn) (raise bool, err error) {
	if raise, err = checkFormat(txn); err != nil {
		return false, err
	}
	sketch, err := checkSketch(txn, s.opt.SketchVersion)
	if err != nil {
		return false, err
	}
	next, _, err := getUint(txn, metaSeq)
	if err != nil {
		return false, err
	}
	written, _, err := getUint(txn, metaDocs)
	if err != nil {
		return false, err
	}
	// Put persists "seq" in every transaction; the last record is a second opinion.
	last, err := lastDocSeq(txn)
	if err != nil {
		return false, err
	}
	next = max(next, last+1)
	if s.markers, err = nextMarker(txn); err != nil {
		return false, err
	}
	s.sketch = sketch
	s.next.Store(next)
	s.stored.Store(next)
	s.written.Store(written)
	return raise, nil
}

// checkFormat checks the stored format marker, writing it in a new
// database; raise says it is an earlier format this build reads (and, from
// now on, writes its own).
func checkFormat(txn *badger.Txn) (raise bool, err error) {
	format, ok, err := getUint(txn, metaFormat)
	switch {
	case err != nil:
		return false, err
	case ok && (format < 1 || format > formatVersion):
		return false, fmt.Errorf("state: stored format %d, this build reads formats 1 to %d", format, formatVersion)
	case ok:
		return format < formatVersion, nil
	}
	it := txn.NewIterator(badger.IteratorOptions{})
	it.Rewind()
	empty := !it.Valid()
	it.Close()
	if !empty {
		return false, errors.New("state: database has data but no format marker (not a dedupstream state?)")
	}
	return false, txn.Set(metaKey(metaFormat), binary.BigEndian.AppendUint64(nil, formatVersion))
}

func checkSketch(txn *badger.Txn, configured string) (string, error) {
	item, err := txn.Get(metaKey(metaSketch))
	if errors.Is(err, badger.ErrKeyNotFound) {
		if configured == "" {
			return "", nil
		}
		return configured, txn.Set(metaKey(metaSketch), []byte(configured))
	}
	if err != nil {
		return "", err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return "", err
	}
	if configured != "" && string(v) != configured {
		return "", &SketchMismatchError{Stored: string(v), Configured: configured}
	}
	return string(v), nil
}

// getUint reads an 8-byte big-endian metadata value; absent reads as 0, false.
func getUint(txn *badger.Txn, name string) (uint64, bool, error) {
	item, err := txn.Get(metaKey(name))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var x uint64
	err = item.Value(func(v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("%w: metadata %q has %d bytes", ErrCorrupt, name, len(v))
		}
		x = binary.BigEndian.Uint64(v)
		return nil
	})
	return x, err == nil, err
}

// lastKey returns the largest key txn sees under last's first byte, at most
// last, or nil if there is none.
func lastKey(txn *badger.Txn, last []byte) []byte {
	it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: last[:1]})
	defer it.Close()
	it.Seek(last)
	if !it.Valid() {
		return nil
	}
	return it.Item().KeyCopy(nil)
}

// lastDocSeq returns the largest stored seq, 0 if there is none.
func lastDocSeq(txn *badger.Txn) (uint64, error) {
	key := lastKey(txn, appendDocKey(nil, ^uint64(0)))
	if key == nil {
		return 0, nil
	}
	return seqSuffix(key), nil
}

// nextMarker is the number after the largest marker's, 0 for
// none. A marker whose number is reused had expired: overwriting it loses
// nothing.
func nextMarker(txn *badger.Txn) (uint64, error) {
	key := lastKey(txn, appendMarkerKey(nil, ^uint64(0)))
	if key == nil {
		return 0, nil
	}
	if len(key) != markerKeyLen {
		return 0, fmt.Errorf("%w: marker key %x has %d bytes", ErrCorrupt, key, len(key))
	}
	return binary.BigEndian.Uint64(key[1:]) + 1, nil
}

// Reserve returns the next sequence number: 1 in a new database, and above every
// seq ever Put after a restart. Numbers reserved but never Put leave gaps, and may
// be handed out again after a restart. Reserve keeps counting after Close.
func (s *Store) Reserve() uint64 {
	return s.next.Add(1) - 1
}

// SketchVersion returns the sketch version stored in the database ("" if none was
// ever configured).
func (s *Store) SketchVersion() string {
	return s.sketch
}

// Close stops value-log GC and closes the database, after calls in progress have
// returned. It is idempotent; concurrent callers all wait for the first to finish.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		for s.active > 0 {
			s.idle.Wait()
		}
		s.mu.Unlock()
		s.gc.end()
		s.sweeper.end()
		s.writeback.end()
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("close state %s: %w", where(s.opt), err)
		}
	})
	return s.closeErr
}

// enter registers a call in progress; every successful enter needs a leave.
func (s *Store) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.active++
	return nil
}

// closing reports whether Close has begun.
func (s *Store) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Store) leave() {
	s.mu.Lock()
	s.active--
	if s.active == 0 && s.closed {
		s.idle.Broadcast()
	}
	s.mu.Unlock()
}
