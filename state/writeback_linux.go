package state

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// writebackEvery is how often the Store starts the writeback of the newest
// value-log file's dirty pages.
const writebackEvery = time.Second

// startWriteback starts the loop that, every writebackEvery, asks the kernel
// to start writing the newest value-log file's dirty pages to disk
// (sync_file_range with SYNC_FILE_RANGE_WRITE, which does not wait for
// them). Badger maps the file and, when it is full, msyncs it on the write
// path before it opens the next one: every write of the store waits for
// that, and with the file's pages left to the kernel's 30-second writeback
// it waited 0.35-0.4 s at 1M documents (BENCHMARKS.md, "Records in the value
// log"). Pages started a second earlier leave it little to wait for.
func (s *Store) startWriteback() {
	if !s.opt.InMemory && !s.opt.SyncWrites {
		s.writeback = every(writebackEvery, s.startWritingBack)
	}
}

// startWritingBack starts the writeback of the newest value-log file.
func (s *Store) startWritingBack(<-chan struct{}) {
	files, err := filepath.Glob(filepath.Join(s.opt.Dir, "*.vlog"))
	if err != nil || len(files) == 0 {
		return
	}
	f, err := os.Open(slices.Max(files)) // zero-padded names: the newest sorts last
	if err != nil {
		return // rotated away or removed meanwhile: the next tick finds the new one
	}
	defer f.Close()
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
