package state

import "testing"

// TestWritebackRunsOnDisk: the loop that starts the newest value-log file's
// writeback runs for on-disk stores that leave syncing to the kernel, and
// Close stops it; it runs without a value-log file too.
func TestWritebackRunsOnDisk(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{})
	if s.writeback == nil {
		t.Error("on-disk store: no writeback loop")
	}
	put(t, s, doc(1, 1))
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
