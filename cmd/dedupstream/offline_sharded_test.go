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
// of its own) or of one shard's is refused with a message naming what to
// do, instead of reporting an empty state or a sketch mismatch.
func TestOfflineRefusesShardedRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(shard.ShardDir(dir, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	var cfg Config
	cfg.State.Dir = dir
	cfg.EnsureDefaults()
	_, _, err := openReclusterState(cfg, 0)
	if err == nil || !strings.Contains(err.Error(), "sharded") || !strings.Contains(err.Error(), "state collect") {
		t.Fatalf("openReclusterState on a sharded root: %v, want a refusal naming state collect", err)
	}
	cfg.State.Dir = shard.ShardDir(dir, 0)
	_, _, err = openReclusterState(cfg, 0)
	if err == nil || !strings.Contains(err.Error(), "one shard") || !strings.Contains(err.Error(), "state collect") {
		t.Fatalf("openReclusterState on a shard: %v, want a refusal naming state collect", err)
	}
	for _, single := range []string{t.TempDir(), filepath.Join(t.TempDir(), "shards", "dedup")} { // single-instance states open
		cfg.State.Dir = single
		st, _, err := openReclusterState(cfg, 0)
		if err != nil {
			t.Fatalf("%s: %v", single, err)
		}
		st.Close()
	}
}
