package stream

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dedupstream/dedupstream/state"
)

// TestStateGauges: the gauges hold the state's size from the start and
// follow it on every tick, which also calls also; after Close neither stats
// nor also is called again.
func TestStateGauges(t *testing.T) {
	var docs, ticks atomic.Int64
	stats := func() state.Stats {
		n := docs.Add(1)
		return state.Stats{Docs: uint64(n), LSMBytes: 10 * n, VLogBytes: 20 * n, IndexBytes: 30 * n}
	}
	f := func(reg *prometheus.Registry, want int64) {
		t.Helper()
		got := samples(t, reg)
		for series, v := range map[string]int64{"dedupstream_state_documents": want, "dedupstream_state_bytes{kind=lsm}": 10 * want,
			"dedupstream_state_bytes{kind=vlog}": 20 * want, "dedupstream_state_bytes{kind=index}": 30 * want} {
			if got[series] != float64(v) {
				t.Errorf("%s = %v, want %d", series, got[series], v)
			}
		}
	}
	// Sampled before StartStateGauges returns (an interval no tick comes
	// in, so that the check does not race the first tick).
	reg := prometheus.NewRegistry()
	StartStateGauges(reg, stats, time.Hour, func() {}).Close()
	f(reg, 1)

	docs.Store(0)
	reg = prometheus.NewRegistry()
	g := StartStateGauges(reg, stats, time.Millisecond, func() { ticks.Add(1) })
	for deadline := time.Now().Add(10 * time.Second); ticks.Load() < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d ticks in 10s", ticks.Load())
		}
	}
	g.Close()
	n, tk := docs.Load(), ticks.Load()
	f(reg, n)
	time.Sleep(10 * time.Millisecond)
	if docs.Load() != n || ticks.Load() != tk {
		t.Errorf("sampled after Close: stats %d → %d, also %d → %d", n, docs.Load(), tk, ticks.Load())
	}
}
