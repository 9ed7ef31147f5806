package memlimit

import (
	"math"
	"runtime/debug"
	"testing"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state"
)

// TestAuto: the write buffers, 1.25 times the indexes' bytes and the
// headroom, never under the floor.
func TestAuto(t *testing.T) {
	const mib = 1 << 20
	f := func(buffers, index, want int64) {
		t.Helper()
		if got := Auto(buffers, state.Stats{IndexBytes: index}); got != want {
			t.Errorf("buffers %d MiB, index %d MiB: %d MiB, want %d MiB", buffers/mib, index/mib, got/mib, want/mib)
		}
	}
	f(0, 0, Floor)
	f(40*mib, 80*mib, Floor)
	f(40*mib, 100*mib, 40*mib+125*mib+Headroom)
	f(400*mib, 0, 400*mib+Headroom)
}

// TestFollow: each sample sets the limit its stats give; Set puts back the
// limit it replaced.
func TestFollow(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	var st state.Stats
	follow := Follow(func() state.Stats { return st }, func(s state.Stats) int64 { return Auto(0, s) }, zap.NewNop())
	for _, st = range []state.Stats{{IndexBytes: 200 << 20}, {IndexBytes: 300 << 20}} {
		debug.SetMemoryLimit(math.MaxInt64)
		if got := follow(); got != st {
			t.Errorf("follow returned %+v, want %+v", got, st)
		}
		if got, want := debug.SetMemoryLimit(-1), Auto(0, st); got != want {
			t.Errorf("state %+v: limit %d, want %d", st, got, want)
		}
	}
	debug.SetMemoryLimit(math.MaxInt64)
	restore := Set(Floor, true, zap.NewNop())
	if got := debug.SetMemoryLimit(-1); got != Floor {
		t.Errorf("Set: limit %d, want %d", got, Floor)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("restore: limit %d, want the one before", got)
	}
}
