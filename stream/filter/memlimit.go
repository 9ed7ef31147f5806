package filter

import (
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/state/memlimit"
)

// AutoMemoryLimit reports whether memory_limit is left to the process: 0,
// no GOMEMLIMIT in the environment (goMemLimit: the runtime has applied that
// one), and the state on disk (an in-memory state is all Go heap, and grows
// with it).
func (c *Config) AutoMemoryLimit(goMemLimit bool) bool {
	return c.MemoryLimit == 0 && !goMemLimit && !c.State.InMemory
}

// SoftMemoryLimit is the soft memory limit to set, 0 for none: memory_limit
// when positive; when automatic, memlimit.Auto of the Badger write buffers
// of the stores this process may open (its state's, or in sharded mode every
// shard's, should it own them all).
func (c *Config) SoftMemoryLimit(st state.Stats, goMemLimit bool) int64 {
	if c.MemoryLimit > 0 {
		return c.MemoryLimit
	}
	if !c.AutoMemoryLimit(goMemLimit) {
		return 0
	}
	buffers := c.State.WriteBufferBytes()
	if c.Index.Shards > 0 {
		buffers = c.Index.WriteBufferBytes()
	}
	return memlimit.Auto(buffers, st)
}

// setMemoryLimit sets the soft memory limit cfg asks for, if any, for a
// state of the size st reports (memlimit.Set).
func setMemoryLimit(cfg *Config, goMemLimit bool, st state.Stats, log *zap.Logger) (restore func()) {
	return memlimit.Set(cfg.SoftMemoryLimit(st, goMemLimit), cfg.AutoMemoryLimit(goMemLimit), log)
}

// followState returns stats that, when the limit is automatic, also
// raises or lowers it to what the state it reports needs (memlimit.Follow).
func followState(cfg *Config, goMemLimit bool, stats func() state.Stats, log *zap.Logger) func() state.Stats {
	if !cfg.AutoMemoryLimit(goMemLimit) {
		return stats
	}
	limit := func(st state.Stats) int64 { return cfg.SoftMemoryLimit(st, goMemLimit) }
	return memlimit.Follow(stats, limit, log)
}
