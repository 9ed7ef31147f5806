package state

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"go.uber.org/zap"
)

// Defaults applied by EnsureDefaults to zero fields.
const (
	DefaultMaxBucket     = 64
	DefaultMaxCandidates = 32
	DefaultGCInterval    = 10 * time.Minute
	// DefaultMemtableBytes and DefaultNumMemtables size Badger's write
	// buffers: each memtable is an arena of about 1.3 × its size on the Go
	// heap (see Options.NumMemtables for how many there are). A full
	// memtable costs the writer a new arena and the flusher a level-0 table
	// built in one go, both in proportion to its size; at 32 MiB these made
	// the latency tail at 1M documents (p99 / max 169–215 / 230–272 ms in
	// three bench runs), at 8 MiB 50–80 / 76–116 in the three interleaved
	// with them, for 8–21% more CPU (dedupstream bench).
	DefaultMemtableBytes = 8 << 20
	DefaultNumMemtables  = 3
)

// WriteBufferBytes is the usual Go heap of Badger's write path for a store
// with these options (after EnsureDefaults): NumMemtables arenas of ~1.3 ×
// MemtableBytes, plus a level-0 table of MemtableBytes being built from one
// of them. It is not a bound: while flushes lag, up to two more memtables
// exist (Options.NumMemtables).
func (o Options) WriteBufferBytes() int64 {
	return (13*int64(o.NumMemtables) + 10) * o.MemtableBytes / 10
}

// Options configures a Store. The zero value of every field means its default.
type Options struct {
	Dir           string        `yaml:"dir"`            // "" with InMemory → in-memory DB
	InMemory      bool          `yaml:"in_memory"`      // keep everything in memory; lost on Close
	TTL           time.Duration `yaml:"ttl"`            // 0 = keep forever; else every key written for a doc expires after TTL
	MaxBucket     int           `yaml:"max_bucket"`     // postings read per band bucket per lookup; 0 → 64
	MaxCandidates int           `yaml:"max_candidates"` // distinct candidates returned per lookup; 0 → 32
	GCInterval    time.Duration `yaml:"gc_interval"`    // value-log GC ticker; 0 → 10m; negative disables
	SyncWrites    bool          `yaml:"sync_writes"`    // fsync each batch
	// FilterKeys is ignored: it sized the in-memory filter of replay keys
	// that states of format 5 no longer need (dedupstream run warns when it
	// is set). It stays so that configurations which set it still load.
	FilterKeys int `yaml:"filter_keys"`
	// MemtableBytes is the size of one Badger memtable (and of each level-0
	// table flushed from it); NumMemtables is Badger's: how many full
	// memtables may wait to be flushed, besides the one being written and
	// the one being flushed, before writes wait. Together they size the write
	// buffers on the heap (WriteBufferBytes). Counting the memtables Badger
	// itself holds at most (NumMemtables + 2; 3 with NumMemtables 1) cost
	// 10–13% more CPU at 1M documents with the same peak live heap
	// (BENCHMARKS.md), so the option keeps Badger's meaning.
	MemtableBytes int64  `yaml:"memtable_bytes"` // 0 → 8 MiB
	NumMemtables  int    `yaml:"num_memtables"`  // 0 → 3
	SketchVersion string `yaml:"-"`              // set by ForMethod; stored at first open, checked after
	// SetKeys says that Doc.Bands and the keys passed to Candidates are a set
	// (any key may match any key, as many as the method gives) rather than one
	// key per band: they are all kept under the pseudo-band SetBand. ForMethod
	// sets it for sketch methods with lsh.Method.KeyBands() == 0.
	SetKeys bool `yaml:"-"`
	// NoExactIndex leaves out the content-hash group, so Exact is refused: a
	// shard of the sharded index finds exact copies among its candidates
	// (an exact copy has every index key of its original, the exact key
	// included), and the group would cost it a read and a write per document.
	NoExactIndex bool        `yaml:"-"`
	Logger       *zap.Logger `yaml:"-"` // nil → zap.NewNop(); badger's own logger adapted at warning level
}

// EnsureDefaults replaces zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.MaxBucket == 0 {
		o.MaxBucket = DefaultMaxBucket
	}
	if o.MaxCandidates == 0 {
		o.MaxCandidates = DefaultMaxCandidates
	}
	if o.GCInterval == 0 {
		o.GCInterval = DefaultGCInterval
	}
	if o.MemtableBytes == 0 {
		o.MemtableBytes = DefaultMemtableBytes
	}
	if o.NumMemtables == 0 {
		o.NumMemtables = DefaultNumMemtables
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
}

// Validate reports every invalid field; each message names its yaml key.
// Zero values are valid (they mean the default).
func (o Options) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch {
	case o.Dir == "" && !o.InMemory:
		bad("state.dir: required unless state.in_memory is true")
	case o.Dir != "" && o.InMemory:
		bad("state.dir: must be empty when state.in_memory is true, got %q", o.Dir)
	}
	if o.TTL < 0 || (o.TTL > 0 && o.TTL < time.Second) {
		bad("state.ttl: must be 0 (keep forever) or at least 1s (badger expiry has one-second resolution), got %s", o.TTL)
	}
	if o.MaxBucket < 0 {
		bad("state.max_bucket: must be positive (0 means %d), got %d", DefaultMaxBucket, o.MaxBucket)
	}
	if o.MaxCandidates < 0 {
		bad("state.max_candidates: must be positive (0 means %d), got %d", DefaultMaxCandidates, o.MaxCandidates)
	}
	if o.MemtableBytes < 0 || (o.MemtableBytes > 0 && o.MemtableBytes < 4<<20) {
		bad("state.memtable_bytes: must be at least 4 MiB (0 means %d), got %d", DefaultMemtableBytes, o.MemtableBytes)
	}
	if o.NumMemtables < 0 || o.NumMemtables == 1 {
		bad("state.num_memtables: must be at least 2 (0 means %d), got %d", DefaultNumMemtables, o.NumMemtables)
	}
	return errors.Join(errs...)
}

// Badger tuning for this workload: a record of a few hundred bytes per
// document, and a marker per transaction (~110 bytes a document); reads by
// point get.
const (
	// Values of valueThreshold bytes or more — the records, with their
	// sketches (a default oph sketch alone is 256 bytes) — go to Badger's
	// value log, and so do the markers of more than a few documents; the
	// rest (the metadata, the markers of small transactions, and in states
	// of format 4 or older the replay keys) stays in the LSM tree with the
	// keys:
	// WiscKey's key-value separation, which Badger is built for. A memtable
	// then holds a 12-byte pointer for a record instead of the record, so a
	// memtable holds many more documents, and compactions never rewrite
	// records. At 1M documents, interleaved with every record in the tree
	// (84–89 CPU s, an anonymous peak of 609–611 MB with 64 MiB memtables),
	// records in the value log took 73–84 CPU s and peaked at 396–420 MB
	// with 32 MiB memtables (dedupstream bench). Reading a record is one
	// more read, from the value log's mapped file (readRecord), and a record
	// that is overwritten or expires leaves garbage there until the value-log
	// GC (gc_interval) rewrites its file, which it does once a compaction
	// has dropped the key and counted the garbage.
	valueThreshold = 256
	// Two compactors (badger's minimum) suit the two-core target.
	numCompactors = 2
	// Tables of the level below level 0 (badger's default is 2 MiB; deeper
	// levels double it per level). A compaction builds several at once,
	// each in a buffer of twice its size on the Go heap: a fifth of the heap's
	// peak at 1M documents with 2 MiB. With 1 MiB the live heap peaked at
	// 426–435 MB against 439–462, CPU unchanged beyond the noise in interleaved
	// 1M runs, which is what lets the automatic memory limit be lower
	// (dedupstream bench).
	baseTableSize = 1 << 20
	// level0Bytes is how much level 0 gathers before Badger compacts it
	// into the level below: Badger's five tables of 32 MiB memtables.
	// Smaller memtables flush more often and get more level-0 tables
	// (level0Tables), so that a compaction still merges as much at a time:
	// with five 8 MiB tables the same data would be merged into the level
	// below four times as often.
	level0Bytes = 160 << 20
	// level0StallBytes is how much level 0 may hold before Badger stops
	// writes until a compaction has made room: its fifteen tables of 32 MiB,
	// whatever the memtable size, so a compaction running late has room.
	level0StallBytes = 480 << 20
)

// level0Tables is Badger's NumLevelZeroTables for memtables of memtable
// bytes (at least Badger's default, 5), and stall its
// NumLevelZeroTablesStall, the count at which Badger stops writes until a
// compaction has run (at least Badger's margin of 10 tables above).
func level0Tables(memtable int64) (tables, stall int) {
	tables = max(5, int(level0Bytes/memtable))
	return tables, max(tables+10, int(level0StallBytes/memtable))
}

// valueLogFileSize is the size of a value-log file: they are preallocated
// sparse at twice this size while open, and the GC rewrites one file at a
// time. A variable so that tests can make the GC's work small.
var valueLogFileSize int64 = 64 << 20

// thresholdOf is Badger's value threshold for a store with these options.
func thresholdOf(o Options) int64 {
	if o.InMemory {
		// No value log: Badger refuses values above the threshold, and
		// above its largest batch (15% of a memtable).
		return min(1<<20, o.MemtableBytes/8)
	}
	return valueThreshold
}

// badgerOptions maps Options onto badger's. Expects EnsureDefaults to have run.
func badgerOptions(o Options) badger.Options {
	threshold := thresholdOf(o)
	l0, l0Stall := level0Tables(o.MemtableBytes)
	return badger.DefaultOptions(o.Dir).
		WithInMemory(o.InMemory).
		WithSyncWrites(o.SyncWrites).
		WithLogger(badgerLogger{o.Logger.Named("badger").Sugar()}).
		WithNumVersionsToKeep(1).
		// Put and SetCluster are serialised by Store's writer lock and write keys no
		// reader-writer transaction depends on, so conflict tracking is pure overhead.
		WithDetectConflicts(false).
		// Badger's expvar metrics are global per directory; Stats reads table sizes.
		WithMetricsEnabled(false).
		// No block compression: tables are read straight from the mmap and need no
		// block cache. Measured on 100k documents (512-byte sketches), Snappy
		// saves a quarter of the disk (830 against 1100 bytes per document) but
		// costs lookups 15-30% more CPU, and CPU is the budget that binds.
		WithCompression(options.None).
		WithBlockCacheSize(0).
		// Memtables: NumMemtables full ones may queue for the flusher
		// (badger's default is five of 64 MiB).
		WithMemTableSize(o.MemtableBytes).
		WithValueThreshold(threshold).
		WithNumMemtables(o.NumMemtables).
		WithNumLevelZeroTables(l0).
		WithNumLevelZeroTablesStall(l0Stall).
		WithNumCompactors(numCompactors).
		WithBaseTableSize(baseTableSize).
		WithValueLogFileSize(valueLogFileSize)
}

// badgerLogger adapts zap to badger's Logger: its warnings and errors as
// such, and its info and debug messages — every memtable flush and
// compaction — at debug level, where a latency stall can be lined up with
// them (log.level debug; bench --log).
type badgerLogger struct{ s *zap.SugaredLogger }

func (l badgerLogger) Errorf(format string, args ...any) {
	l.s.Errorf(strings.TrimRight(format, "\n"), args...)
}

func (l badgerLogger) Warningf(format string, args ...any) {
	l.s.Warnf(strings.TrimRight(format, "\n"), args...)
}

func (l badgerLogger) Infof(format string, args ...any) {
	l.s.Debugf(strings.TrimRight(format, "\n"), args...)
}

func (l badgerLogger) Debugf(format string, args ...any) {
	l.s.Debugf(strings.TrimRight(format, "\n"), args...)
}

// Method is what the state needs to know of the sketch method that writes and
// reads it; lsh.Method has it.
type Method interface {
	Version() string // stored at first open, checked after
	KeyBands() int   // 0: the method's keys are a set (SetKeys)
}

// ForMethod returns o with the sketch version and key layout of m, the two
// settings every state must be opened with for the method that fills it.
func (o Options) ForMethod(m Method) Options {
	o.SketchVersion, o.SetKeys = m.Version(), m.KeyBands() == 0
	return o
}
