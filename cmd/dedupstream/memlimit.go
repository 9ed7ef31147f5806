package main

import (
	"os"
	"runtime/debug"
	"sync"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state"
)

// memoryHeadroom is what the automatic memory limit allows above the Badger
// write buffers and the in-memory indexes: the tables a compaction is building,
// batches in flight, Kafka buffers and the rest of the heap. With the default
// 8 MiB memtables the limit is ~337 MiB at 1M documents stored, the live heap
// peaking at 272–292 MB. More headroom buys throughput, not latency: 152 MiB
// gave the CPU back but a p99 of 62–71 ms against 33–72 (three and five runs),
// and a 448 MiB limit made the collector run two fifths as often and changed
// neither CPU nor tail (three interleaved pairs; BENCHMARKS.md, "Tried and not
// kept").
const memoryHeadroom = 96 << 20

// memoryFloor is the least automatic limit. What the heap needs besides the
// state — Kafka's buffers, the batches in flight, the collector's room —
// does not shrink with the state, while the write buffers do: without a floor
// the limit is ~135 MiB at 10k documents stored, where the collector ran 3.5
// times as often in the latency run (290 stop-the-world pauses against 84)
// and the p99 rose from 33 to 80 ms (one run each; with a limit of 253 MiB,
// 86 pauses and 56 ms). From ~600,000 documents on (estimated) the formula is
// above the floor.
const memoryFloor = 256 << 20

// autoMemoryLimit reports whether memory_limit is left to the process: 0,
// no GOMEMLIMIT in the environment (the runtime has applied that one), and
// the state on disk (an in-memory state is all Go heap, and grows with it).
func (c *Config) autoMemoryLimit() bool {
	return c.MemoryLimit == 0 && os.Getenv("GOMEMLIMIT") == "" && !c.State.InMemory
}

// memoryLimit is the soft memory limit to set, 0 for none: memory_limit when
// positive; when automatic, the usual size of the Badger write buffers of the
// stores this process may open (its state's, or in sharded mode every
// shard's, should it own them all), the postings and replay indexes' bytes
// and a quarter more (a shard of an index grows beside itself) and
// memoryHeadroom — 135 MiB with the defaults and an empty state —
// and at least memoryFloor. Without a limit the collector lets the heap grow
// to twice what is live.
func (c *Config) memoryLimit(st state.Stats) int64 {
	if c.MemoryLimit > 0 {
		return c.MemoryLimit
	}
	if !c.autoMemoryLimit() {
		return 0
	}
	buffers := c.State.WriteBufferBytes()
	if c.Index.Shards > 0 {
		buffers = c.Index.WriteBufferBytes()
	}
	held := st.IndexBytes + st.IndexBytes/4 + memoryHeadroom
	return max(memoryFloor, buffers+held)
}

// setMemoryLimit sets the soft memory limit cfg asks for, if any, for a
// state of the size st reports, logs it, and returns what puts back the
// limit it replaced (the bench runs several apps in one process).
func setMemoryLimit(cfg *Config, st state.Stats, log *zap.Logger) (restore func()) {
	limit := cfg.memoryLimit(st)
	if limit <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	log.Info("soft memory limit", zap.Int64("bytes", limit), zap.Bool("automatic", cfg.autoMemoryLimit()))
	return func() { debug.SetMemoryLimit(prev) }
}

// followState returns stats that, when the limit is automatic, also
// raises or lowers it to what the postings and replay indexes it reports
// need: the state gauges call it every admin.state_interval, so the
// limit follows the state as it grows.
func followState(cfg *Config, stats func() state.Stats, log *zap.Logger) func() state.Stats {
	if !cfg.autoMemoryLimit() {
		return stats
	}
	var mu sync.Mutex
	last := int64(-1) // the first sample sets it again, harmlessly
	return func() state.Stats {
		st := stats()
		mu.Lock()
		defer mu.Unlock()
		if limit := cfg.memoryLimit(st); limit != last {
			debug.SetMemoryLimit(limit)
			log.Debug("memory limit follows the state", zap.Int64("limit_bytes", limit),
				zap.Int64("index_bytes", st.IndexBytes))
			last = limit
		}
		return st
	}
}
