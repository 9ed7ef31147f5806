package state

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"
)

// gcDiscardRatio is the share of a value-log file that must be garbage before GC
// rewrites it.
const gcDiscardRatio = 0.5

// loop is a goroutine the Store owns (value-log GC, the sweep of expired
// postings, the value log's writeback), which Close stops.
type loop struct{ stop, done chan struct{} }

// every calls fn on a goroutine of its own every interval until the loop is
// stopped; fn is given the channel that closes then, to give up early.
func every(interval time.Duration, fn func(stop <-chan struct{})) *loop {
	l := &loop{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				fn(l.stop)
			}
		}
	}()
	return l
}

// end stops the loop and waits for it; a nil loop (never started) is none.
func (l *loop) end() {
	if l != nil {
		close(l.stop)
		<-l.done
	}
}

// startGC starts the value-log GC loop. In-memory databases have no value log.
func (s *Store) startGC() {
	if !s.opt.InMemory && s.opt.GCInterval >= 0 {
		s.gc = every(s.opt.GCInterval, s.collectGarbage)
	}
}

// collectGarbage rewrites value-log files until badger finds none worth it,
// or stop closes.
func (s *Store) collectGarbage(stop <-chan struct{}) {
	for rewrites := 0; ; rewrites++ {
		select {
		case <-stop:
			return
		default:
		}
		err := s.db.RunValueLogGC(gcDiscardRatio)
		if err == nil {
			continue
		}
		if !errors.Is(err, badger.ErrNoRewrite) && !errors.Is(err, badger.ErrRejected) {
			s.log.Warn("value-log gc", zap.Int("rewrites", rewrites), zap.Error(err))
		} else if rewrites > 0 {
			s.log.Debug("value-log gc", zap.Int("rewrites", rewrites))
		}
		return
	}
}

// Stats returns the approximate number of live documents and the database size.
// It returns zero Stats after Close.
//
// Docs is the number of records Put, corrected for expiry as (next seq − first
// live seq) when that is smaller: exact without TTL, an over-estimate by the gaps
// in the sequence with it. LSMBytes counts SSTables, not memtables or their
// logs, and VLogBytes the value log, which holds the records: both are the disk
// space of their files (allocated blocks on Unix: badger preallocates the
// active value-log file sparsely). Badger's own table sizes would count the
// value-log bytes a table points to as well. Postings, Replays and
// IndexBytes describe the postings and replay indexes, which live in memory
// only.
func (s *Store) Stats() Stats {
	if s.enter() != nil {
		return Stats{}
	}
	defer s.leave()
	var st Stats
	if s.opt.InMemory { // no files, and no value log
		for _, t := range s.db.Tables() {
			st.LSMBytes += int64(t.OnDiskSize)
		}
	} else {
		st.LSMBytes, st.VLogBytes = s.filesBytes("*.sst"), s.filesBytes("*.vlog")
	}
	st.Postings, st.Replays = int64(s.index.Len()), int64(s.replays.Len())
	st.IndexBytes = s.index.Bytes() + s.replays.Bytes()
	st.Docs = s.written.Load()
	if first, ok := s.firstLiveSeq(); !ok {
		st.Docs = 0
	} else if next := s.stored.Load(); next-first < st.Docs {
		st.Docs = next - first
	}
	return st
}

func (s *Store) firstLiveSeq() (uint64, bool) {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixDoc}})
	defer it.Close()
	it.Rewind()
	if !it.Valid() {
		return 0, false
	}
	return seqSuffix(it.Item().Key()), true
}

// filesBytes is the disk space of the files of the state's directory that
// match pattern.
func (s *Store) filesBytes(pattern string) int64 {
	files, err := filepath.Glob(filepath.Join(s.opt.Dir, pattern))
	if err != nil {
		return 0
	}
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			n += diskUsage(fi)
		}
	}
	return n
}

// LevelShape returns each level's table count and bytes, level by level. It
// changes whenever a flush or a compaction finishes, so a shape that holds
// still while CompactionScore is below 1 means the compactors have gone idle.
func (s *Store) LevelShape() []int64 {
	if s.enter() != nil {
		return nil
	}
	defer s.leave()
	var shape []int64
	for _, l := range s.db.Levels() {
		shape = append(shape, int64(l.NumTables), l.Size)
	}
	return shape
}

// CompactionScore returns the highest of Badger's level scores: a level at 1
// or more is due for compaction (level 0 by its table count, the others by
// their size against their target). Badger reports a score only for levels
// that are due, leaving out the last level and tables already being compacted,
// so 0 means that nothing is due, while the last compaction may still run.
func (s *Store) CompactionScore() float64 {
	if s.enter() != nil {
		return 0
	}
	defer s.leave()
	var score float64
	for _, l := range s.db.Levels() {
		score = max(score, l.Score)
	}
	return score
}
