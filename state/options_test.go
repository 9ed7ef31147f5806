package state

import (
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	f := func(o Options, want string) {
		t.Helper()
		err := o.Validate()
		switch {
		case want == "" && err != nil:
			t.Errorf("Validate(%+v) = %v, want nil", o, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Validate(%+v) = %v, want %q", o, err, want)
		}
	}
	f(Options{Dir: "/var/lib/dedupstream"}, "")
	f(Options{InMemory: true}, "")
	f(Options{InMemory: true, TTL: time.Second, GCInterval: -1}, "")
	f(Options{}, "state.dir: required unless state.in_memory is true")
	f(Options{Dir: "x", InMemory: true}, "state.dir: must be empty when state.in_memory is true")
	f(Options{InMemory: true, TTL: -time.Second}, "state.ttl: must be 0")
	f(Options{InMemory: true, TTL: 500 * time.Millisecond}, "state.ttl: must be 0 (keep forever) or at least 1s")
	f(Options{InMemory: true, MaxBucket: -1}, "state.max_bucket: must be positive")
	f(Options{InMemory: true, MaxCandidates: -1}, "state.max_candidates: must be positive")
	f(Options{InMemory: true, FilterKeys: -1}, "") // ignored
	f(Options{InMemory: true, MemtableBytes: 1 << 20}, "state.memtable_bytes: must be at least 4 MiB")
	f(Options{InMemory: true, NumMemtables: 1}, "state.num_memtables: must be at least 2")
	f(Options{InMemory: true, MemtableBytes: 8 << 20, NumMemtables: 2}, "")
	// Every problem is reported, not only the first.
	err := Options{MaxBucket: -1, MaxCandidates: -1}.Validate()
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("Validate with three problems = %v", err)
	}
}

func TestEnsureDefaults(t *testing.T) {
	var o Options
	o.EnsureDefaults()
	if o.MaxBucket != 64 || o.MaxCandidates != 32 || o.GCInterval != 10*time.Minute || o.Logger == nil ||
		o.MemtableBytes != 8<<20 || o.NumMemtables != 3 {
		t.Errorf("defaults = %+v", o)
	}
	o = Options{MaxBucket: 5, MaxCandidates: 6, GCInterval: -1}
	o.EnsureDefaults()
	if o.MaxBucket != 5 || o.MaxCandidates != 6 || o.GCInterval != -1 {
		t.Errorf("EnsureDefaults overwrote set fields: %+v", o)
	}
}

// TestLevel0Tables checks that level 0 holds as many bytes before a
// compaction, and before writes stop, whatever the memtable size, and never
// fewer tables than Badger's defaults.
func TestLevel0Tables(t *testing.T) {
	for _, c := range []struct {
		memtable     int64
		tables, stop int
	}{
		{32 << 20, 5, 15}, // Badger's defaults at the former default size
		{64 << 20, 5, 15},
		{16 << 20, 10, 30},
		{DefaultMemtableBytes, 20, 60},
		{4 << 20, 40, 120},
	} {
		tables, stop := level0Tables(c.memtable)
		if tables != c.tables || stop != c.stop {
			t.Errorf("level0Tables(%d MiB) = %d, %d; want %d, %d", c.memtable>>20, tables, stop, c.tables, c.stop)
		}
		o := Options{Dir: t.TempDir(), MemtableBytes: c.memtable}
		o.EnsureDefaults()
		if b := badgerOptions(o); b.NumLevelZeroTables != c.tables || b.NumLevelZeroTablesStall != c.stop {
			t.Errorf("badgerOptions with %d MiB memtables: level 0 %d, stall %d; want %d, %d",
				c.memtable>>20, b.NumLevelZeroTables, b.NumLevelZeroTablesStall, c.tables, c.stop)
		}
	}
}
