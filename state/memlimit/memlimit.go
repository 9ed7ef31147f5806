package memlimit

import (
	"runtime/debug"
	"sync"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state"
)

// Headroom is what the automatic memory limit allows above the Badger
// write buffers and the in-memory indexes: the tables a compaction is building,
// batches in flight, Kafka buffers and the rest of the heap. With the default
// 8 MiB memtables the limit is ~337 MiB at 1M documents stored, the live heap
// peaking at 272–292 MB. More headroom buys throughput, not latency: 152 MiB
// gave the CPU back but a p99 of 62–71 ms against 33–72 (three and five runs),
// and a 448 MiB limit made the collector run two fifths as often and changed
// neither CPU nor tail (three interleaved pairs; BENCHMARKS.md, "Tried and not
// kept").
const Headroom = 96 << 20

// Floor is the least automatic limit. What the heap needs besides the
// state — Kafka's buffers, the batches in flight, the collector's room —
// does not shrink with the state, while the write buffers do: without a floor
// the limit is ~135 MiB at 10k documents stored, where the collector ran 3.5
// times as often in the latency run (290 stop-the-world pauses against 84)
// and the p99 rose from 33 to 80 ms (one run each; with a limit of 253 MiB,
// 86 pauses and 56 ms). From ~600,000 documents on (estimated) the formula is
// above the floor.
const Floor = 256 << 20

// Auto is the automatic limit of a process whose stores' write buffers take
// buffers bytes and whose state st reports: the buffers, the postings and
// replay indexes' bytes and a quarter more (a shard of an index grows beside
// itself) and Headroom — 135 MiB with the default buffers and an empty
// state — and at least Floor. Without a limit the collector lets the heap
// grow to twice what is live.
func Auto(buffers int64, st state.Stats) int64 {
	held := st.IndexBytes + st.IndexBytes/4 + Headroom
	return max(Floor, buffers+held)
}

// Set sets the soft memory limit to limit, if positive, logs it, and returns
// what puts back the limit it replaced (a bench runs several filters in one
// process).
func Set(limit int64, automatic bool, log *zap.Logger) (restore func()) {
	if limit <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	log.Info("soft memory limit", zap.Int64("bytes", limit), zap.Bool("automatic", automatic))
	return func() { debug.SetMemoryLimit(prev) }
}

// Follow returns stats that also sets the soft memory limit to what limit
// gives for each sample, when that changed: the state gauges call it every
// admin.state_interval, so the limit follows the state as it grows.
func Follow(stats func() state.Stats, limit func(state.Stats) int64, log *zap.Logger) func() state.Stats {
	var mu sync.Mutex
	last := int64(-1) // the first sample sets it again, harmlessly
	return func() state.Stats {
		st := stats()
		mu.Lock()
		defer mu.Unlock()
		if l := limit(st); l != last {
			debug.SetMemoryLimit(l)
			log.Debug("memory limit follows the state", zap.Int64("limit_bytes", l),
				zap.Int64("index_bytes", st.IndexBytes))
			last = l
		}
		return st
	}
}
