package filter

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"go.uber.org/zap"
	"gopkg.in/yaml.v3"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/state/memlimit"
)

// load is the configuration of a file holding text, defaulted and valid.
func load(t *testing.T, text string) Config {
	t.Helper()
	c := NewConfig()
	dec := yaml.NewDecoder(strings.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && text != "" {
		t.Fatal(err)
	}
	c.EnsureDefaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSoftMemoryLimit: memory_limit 0 sizes the limit from the Badger write
// buffers the process may hold — its state's, or in sharded mode every shard
// store's — 1.25 times the postings and replay indexes' bytes and the
// headroom; -1, an in-memory state or GOMEMLIMIT set none;
// bytes are taken as given.
func TestSoftMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	goMemLimit := false
	f := func(yaml string, index, want int64) {
		t.Helper()
		c := load(t, yaml)
		if got := c.SoftMemoryLimit(state.Stats{IndexBytes: index}, goMemLimit); got != want {
			t.Errorf("config %q, index %d MiB: memory limit %d MiB, want %d MiB", yaml, index/mib, got/mib, want/mib)
		}
	}
	// three 8 MiB memtables of ~1.3 × their size and a level-0 table: 39.2 MiB,
	// and the headroom: under the floor until the state has grown
	f("", 0, memlimit.Floor)
	f("", 100*mib, 392*mib/10+125*mib+memlimit.Headroom)
	f("", 80*mib, memlimit.Floor)
	f("state:\n  memtable_bytes: 33554432\n  num_memtables: 2\n", 0, memlimit.Floor)
	f("state:\n  memtable_bytes: 67108864\n  num_memtables: 2\n", 0, 36*64*mib/10+memlimit.Headroom)
	// four shard stores of two 16 MiB memtables each
	f("index:\n  shards: 4\n", 0, 4*(36*16*mib/10)+memlimit.Headroom)
	f("memory_limit: 1073741824\n", 20*mib, 1024*mib)
	f("memory_limit: -1\n", 0, 0)
	f("state:\n  dir: \"\"\n  in_memory: true\n", 0, 0)
	goMemLimit = true
	f("", 0, 0)
	f("memory_limit: 1073741824\n", 0, 1024*mib)
}

// TestFollowState: with the automatic limit, every state sample sets the
// runtime's limit from the indexes' bytes it reports; with
// an explicit one the samples leave it alone.
func TestFollowState(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	var st state.Stats
	stats := func() state.Stats { return st }
	c := load(t, "")
	follow := followState(&c, false, stats, zap.NewNop())
	for _, st = range []state.Stats{{}, {IndexBytes: 160 << 20}, {IndexBytes: 200 << 20}} { // each above the floor
		debug.SetMemoryLimit(math.MaxInt64)
		follow()
		if got, want := debug.SetMemoryLimit(-1), c.SoftMemoryLimit(st, false); st != (state.Stats{}) && got != want {
			t.Errorf("state %+v: limit %d, want %d", st, got, want)
		}
	}
	debug.SetMemoryLimit(math.MaxInt64)
	c = load(t, "memory_limit: 1073741824\n")
	followState(&c, false, stats, zap.NewNop())()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("an explicit memory_limit was changed by a state sample to %d", got)
	}
}
