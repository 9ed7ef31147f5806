package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/stream/shard"
)

// TestOfflineRefusesShardedRoot checks that offline re-clustering of a
// sharded instance's state directory (shards under shards/NNN, no documents
// of its own) is refused with a message naming what to do, instead of
// reporting an empty state.
func TestOfflineRefusesShardedRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(shard.ShardDir(dir, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	var cfg Config
	cfg.State.Dir = dir
	cfg.ensureDefaults()
	_, _, err := openReclusterState(cfg, 0)
	if err == nil || !strings.Contains(err.Error(), "sharded") || !strings.Contains(err.Error(), filepath.Join("shards", "000")) {
		t.Fatalf("openReclusterState on a sharded root: %v, want a refusal naming a shard directory", err)
	}
	cfg.State.Dir = t.TempDir() // a single-instance state opens
	st, _, err := openReclusterState(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}
