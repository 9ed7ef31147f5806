package state

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenAfterKillCreatingLog: a process killed while Badger creates a
// value-log or memtable file leaves the file empty, and Badger v4 then
// refuses to open the directory ("Open existing file ...: Create a new
// file"); the crash harness of cmd/dedupstream found it. Open removes such an
// empty file, which holds nothing, and opens.
func TestOpenAfterKillCreatingLog(t *testing.T) {
	f := func(name string) {
		t.Helper()
		dir := t.TempDir()
		openCloseWith(t, dir, "")
		openCloseWith(t, dir, name)
	}
	f("000099.vlog")
	f("00099.mem")
}

// openCloseWith opens and closes a store in dir, with an empty file called
// name planted first if name is set, and checks that Open removed it.
func openCloseWith(t *testing.T, dir, name string) {
	t.Helper()
	empty := filepath.Join(dir, name)
	if name != "" {
		if err := os.WriteFile(empty, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(Options{Dir: dir, GCInterval: -1})
	if err != nil {
		t.Fatalf("open with an empty %s: %v", name, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty); name != "" && !os.IsNotExist(err) {
		t.Errorf("the empty %s is still there (%v)", name, err)
	}
}
