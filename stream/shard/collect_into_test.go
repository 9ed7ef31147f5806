package shard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/state"
)

// TestCollectIntoRefusesAFullDirectory: collecting never mixes a sharded
// index into a state that holds anything already.
func TestCollectIntoRefusesAFullDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := CollectInto(context.Background(), CollectOptions{}, state.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("CollectInto a full directory: %v", err)
	}
}
