package offline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
