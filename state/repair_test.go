package state

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
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

// TestOpenAfterCrashWithLargerMemtables: a state whose process died with a
// memtable of 32 MiB unflushed (an older configuration's size) opens with
// the default 8 MiB memtables and keeps every document.
// Badger replays the memtable's write-ahead log into an arena of the size it
// is opened with, and one too small for it ends the process, so Open uses the
// size the log was written with, this once. The crash is a copy of the
// directory taken while the store is open and has written.
func TestOpenAfterCrashWithLargerMemtables(t *testing.T) {
	const n = 100_000 // ~17 MB of memtable: more than an 8 MiB one's arena holds
	live := openDisk(t, t.TempDir(), Options{GCInterval: -1, MemtableBytes: 32 << 20, Logger: zap.NewNop()})
	defer live.Close()
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = doc(uint64(i + 1))
	}
	for i := 0; i < n; i += 1000 {
		put(t, live, docs[i:i+1000]...)
	}
	crashed := t.TempDir()
	if err := os.CopyFS(crashed, os.DirFS(live.opt.Dir)); err != nil {
		t.Fatal(err)
	}
	if need, err := memtableForLogs(crashed); err != nil || need != 32<<20 {
		t.Fatalf("memtableForLogs = %d, %v; want the 32 MiB the logs were written with", need, err)
	}
	s := openDisk(t, crashed, Options{GCInterval: -1, Logger: zap.NewNop()})
	defer s.Close()
	if s.opt.MemtableBytes != 32<<20 {
		t.Errorf("opened with %d-byte memtables, want the logs' 32 MiB", s.opt.MemtableBytes)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		got, ok, err := s.Get(docs[i].Seq)
		if err != nil || !ok {
			t.Fatalf("seq %d after the crash: %v, %v", docs[i].Seq, ok, err)
		}
		sameDoc(t, got, docs[i])
	}
}
