package offline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/state"
)

// TestNotSharded refuses a sharded instance's state directory and one of its
// shards, and lets any other directory through.
func TestNotSharded(t *testing.T) {
	root := t.TempDir()
	sharded := filepath.Join(root, "sharded")
	if err := os.MkdirAll(filepath.Join(sharded, "shards", "003"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := func(dir, want string) {
		t.Helper()
		err := NotSharded(dir)
		if (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("NotSharded(%s) = %v, want %q", dir, err, want)
		}
	}
	f(sharded, "is a sharded filter's")
	f(filepath.Join(sharded, "shards", "003"), "is one shard of a sharded filter")
	f(root, "")
	f("", "")
}

// TestOpenState refuses a sharded instance's state and opens any other,
// running no value-log GC.
func TestOpenState(t *testing.T) {
	sharded := t.TempDir()
	if err := os.MkdirAll(filepath.Join(sharded, "shards", "000"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenState(state.Options{Dir: sharded}); err == nil || !strings.Contains(err.Error(), "is a sharded filter's") {
		t.Errorf("OpenState of a sharded root: %v", err)
	}
	st, err := OpenState(state.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Error(err)
	}
}
