package state

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWritebackRunsOnDisk: the loop that starts the newest value-log file's
// writeback runs for on-disk stores that leave syncing to the kernel, and
// Close stops it; it runs without a value-log file too.
func TestWritebackRunsOnDisk(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	if s.writeback == nil {
		t.Error("on-disk store: no writeback loop")
	}
	d := doc(1, 1)
	d.Sketch = make([]byte, 512) // a record for the value log
	put(t, s, d)
	if newestVlog(s.opt.Dir) == "" {
		t.Fatal("no value-log file to write back")
	}
	s.startWritingBack(nil)
	if m := openMem(t, Options{}); m.writeback != nil {
		t.Error("in-memory store runs a writeback loop")
	}
	if d := openDisk(t, t.TempDir(), Options{SyncWrites: true}); d.writeback != nil {
		t.Error("a store that syncs every write runs a writeback loop")
	}
	empty := &Store{opt: Options{Dir: t.TempDir()}}
	empty.startWritingBack(nil)
}

// TestNewestVlog: the newest value-log file is the one of the largest id,
// also past the six digits Badger pads ids to.
func TestNewestVlog(t *testing.T) {
	dir := t.TempDir()
	if got := newestVlog(dir); got != "" {
		t.Errorf("no value-log file: newest %q", got)
	}
	for _, name := range []string{"000009.vlog", "000010.vlog", "999999.vlog", "1000000.vlog", "000011.sst", "DISCARD"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := newestVlog(dir), filepath.Join(dir, "1000000.vlog"); got != want {
		t.Errorf("newest value-log file %q, want %q", got, want)
	}
}
