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

// TestOpenLeavesLiveDatabaseAlone: a second Open of a directory another
// store has open must fail on Badger's lock without first removing an empty
// log file, which in a live database may be one just being created.
func TestOpenLeavesLiveDatabaseAlone(t *testing.T) {
	dir := t.TempDir()
	live, err := Open(Options{Dir: dir, GCInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	empty := filepath.Join(dir, "000099.vlog")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(Options{Dir: dir, GCInterval: -1}); err == nil {
		s.Close()
		t.Fatal("a second Open of a live directory succeeded")
	}
	if _, err := os.Stat(empty); err != nil {
		t.Errorf("the second Open removed a file of the live database: %v", err)
	}
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
