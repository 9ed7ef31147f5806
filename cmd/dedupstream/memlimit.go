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
// batches in flight, Kafka buffers and the rest of the heap. At 1M documents
// stored, with the 1 MiB base tables (state's baseTableSize), the live heap
// peaked at 428–435 MB; the ~467 MiB this headroom gives there (or 448 MiB)
// made no CPU difference beyond the noise against 2 MiB tables with 192 MiB
// (~563 MiB) in four interleaved pairs (−8% to +5% each), and the anonymous
// peak was 411–472 MB against 515–559 (BENCHMARKS.md). With 2 MiB tables a
// limit of 448 MiB had cost 3–14% more CPU: the collector ran back to back
// whenever the memtables were full. (Measured before the postings index
// moved into memory; with it, the limit at 1M is ~620 MiB and the collector
// runs about once a second at 10k documents/s: BENCHMARKS.md, "Postings in
// memory". Since the records moved to the value log, with 32 MiB memtables,
// it was ~445 MiB there, and the live heap peaked at 355–403 MB: "Records in
// the value log". With the 8 MiB memtables of the eleventh session it is
// ~328 MiB, the live heap peaking at 272–292 MB, and the collector runs more
// often: 8–21% more CPU at 1M. A headroom of 152 MiB took that back, but the
// latency p99 was 62–71 ms against 33–72 (three and five runs): "Smaller
// memtables: the flush tail". With the replay index of state format 5 it is
// ~337 MiB at 1M; a limit of 448 MiB there made the collector run two
// fifths as often and changed neither the CPU nor the tail, three runs each:
// "Replay postings in the markers".)
const memoryHeadroom = 96 << 20

// memoryFloor is the least automatic limit. What the heap needs besides the
// state — Kafka's buffers, the batches in flight, the collector's room —
// does not shrink with the state, and the write buffers that used to make
// room for it did, to a quarter, with the 8 MiB memtables of the eleventh
// session: at 10k documents stored the limit fell from 253 to ~135 MiB, the
// collector ran 3.5 times as often in the latency run (290 stop-the-world
// pauses against 84) and the p99 rose from 33 to 80 ms (one run each; with
// a limit of 253 MiB, 86 pauses and 56 ms). The old start (253 MiB) is
// the floor; from ~600,000 documents on (estimated) the formula is above it.
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
