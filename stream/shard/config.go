package shard

import (
	"errors"
	"fmt"
	"time"

	"github.com/dedupstream/dedupstream/state"
)

// Config is the index section of the configuration: zero Shards is the
// single-instance index, any other value the sharded one. Zero values mean
// defaults; call EnsureDefaults, then Validate.
type Config struct {
	// Shards is S, the partitions of the probe topic; it cannot change on a
	// live filter (docs/scale-out.md, "Limits").
	Shards int `yaml:"shards"`
	// Standbys is how many other instances keep a warm copy of each shard
	// (Kafka Streams' num.standby.replicas), tailing its sequence log without
	// answering; the index group then gives a shard to the member whose
	// copy is furthest along, so a failed owner's shard moves without a
	// rebuild. 0: a moved shard is rebuilt from the sequence log.
	Standbys int `yaml:"standbys"`
	// InFlight bounds the batches whose answers a front waits for at once.
	InFlight int `yaml:"in_flight"`
	// AnswerTimeout is how long a front waits for a shard's answer before it
	// sends the probe again (harmless: the answer is stored).
	AnswerTimeout time.Duration `yaml:"answer_timeout"`
	// ReorderIdle is how long a front holds a record back for its other
	// input partitions to catch up with its timestamp, so that it appends to
	// the sequence log in record-time order (stream.Deps.ReorderIdle).
	ReorderIdle time.Duration `yaml:"reorder_idle"`
	// CommitInterval is how often a server commits its shards' probe-log
	// positions, all in one request (Kafka Streams' commit.interval.ms). A
	// position is only offered once its answers are written, so a longer
	// interval costs nothing but answers sent again after a failover.
	CommitInterval time.Duration `yaml:"commit_interval"`
	// AnswersRetention is the answer topic's retention.ms at creation.
	AnswersRetention time.Duration `yaml:"answers_retention"`
	// Replication is the replication factor of the internal topics at
	// creation; 0 means min(3, brokers).
	Replication int `yaml:"replication"`
	// MemtableBytes is each shard store's Badger memtable size (two per
	// shard, because an instance may own many shards: fewer than the single
	// store's three). 16 MiB is twice state.memtable_bytes' default; sharded
	// mode was not measured with 8 MiB, and 32 or 64 MiB made no CPU
	// difference at 150k documents for 0.7–1.9 GB more peak RSS.
	MemtableBytes int64 `yaml:"memtable_bytes"`
}

// storeMemtables is how many memtables of MemtableBytes a shard store has.
const storeMemtables = 2

// WriteBufferBytes bounds the Go heap the write paths of every shard store
// hold, should one instance own all Shards of them (state.Options).
func (c Config) WriteBufferBytes() int64 {
	return int64(c.Shards) * state.Options{MemtableBytes: c.MemtableBytes, NumMemtables: storeMemtables}.WriteBufferBytes()
}

// EnsureDefaults fills zero fields with defaults.
func (c *Config) EnsureDefaults() {
	if c.InFlight == 0 {
		c.InFlight = 4
	}
	if c.AnswerTimeout == 0 {
		c.AnswerTimeout = 10 * time.Second
	}
	if c.ReorderIdle == 0 {
		c.ReorderIdle = 250 * time.Millisecond
	}
	if c.CommitInterval == 0 {
		c.CommitInterval = time.Second
	}
	if c.AnswersRetention == 0 {
		c.AnswersRetention = time.Hour
	}
	if c.MemtableBytes == 0 {
		c.MemtableBytes = 16 << 20
	}
}

// MaxShards bounds index.shards: one Badger store per shard.
const MaxShards = 1024

// Validate reports every invalid field, naming its configuration key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Shards < 0 || c.Shards > MaxShards {
		bad("index.shards: must be in [0, %d] (0: the single-instance index), got %d", MaxShards, c.Shards)
	}
	if c.Standbys < 0 || c.Standbys > 3 {
		bad("index.standbys: must be in [0, 3], got %d", c.Standbys)
	}
	if c.InFlight < 1 || c.InFlight > 1000 {
		bad("index.in_flight: must be in [1, 1000], got %d", c.InFlight)
	}
	if c.AnswerTimeout < time.Second {
		bad("index.answer_timeout: must be at least 1s, got %s", c.AnswerTimeout)
	}
	if c.ReorderIdle < 0 || c.ReorderIdle > time.Minute {
		bad("index.reorder_idle: must be in [0, 1m], got %s", c.ReorderIdle)
	}
	if c.CommitInterval < 10*time.Millisecond || c.CommitInterval > time.Minute {
		bad("index.commit_interval: must be in [10ms, 1m], got %s", c.CommitInterval)
	}
	if c.AnswersRetention < time.Minute {
		bad("index.answers_retention: must be at least 1m, got %s", c.AnswersRetention)
	}
	if c.Replication < 0 {
		bad("index.replication: must not be negative, got %d", c.Replication)
	}
	if c.MemtableBytes < 4<<20 {
		bad("index.memtable_bytes: must be at least 4 MiB, got %d", c.MemtableBytes)
	}
	return errors.Join(errs...)
}
