package shard

import (
	"context"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
)

// committer commits the sequence-log positions of one generation's shards, all
// in one OffsetCommit request per index.commit_interval, as Kafka Streams
// commits a task's offsets on commit.interval.ms rather than per record.
//
// A commit per batch per shard cost a quarter of a sharded instance's CPU:
// kafka-go's Conn serves the generation's concurrent requests on one
// connection, and each waiting request spins on the read deadline until the
// response with its correlation id arrives. One request per interval does
// not spin, and costs nothing in safety: a shard offers a position only after
// the answers below it are written, and a position not yet committed when the
// shard moves only means its next owner answers those probes again (a front
// ignores an answer it already has).
type committer struct {
	gen      *kafka.Generation
	topic    string
	interval time.Duration
	log      *zap.Logger

	mu  sync.Mutex
	due map[int]int64 // shard → next offset, offered since the last commit
}

func newCommitter(gen *kafka.Generation, topic string, interval time.Duration, log *zap.Logger) *committer {
	return &committer{gen: gen, topic: topic, interval: interval, log: log, due: map[int]int64{}}
}

// offer records that shard's answers are written up to (excluding) next.
func (c *committer) offer(shard int, next int64) {
	c.mu.Lock()
	c.due[shard] = max(c.due[shard], next)
	c.mu.Unlock()
}

// run commits every interval until ctx (the generation) ends, then once more
// for what the shards offered last: the group accepts a commit from the
// ending generation until it has rebalanced.
func (c *committer) run(ctx context.Context) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			c.commit()
			return
		case <-t.C:
			c.commit()
		}
	}
}

func (c *committer) commit() {
	c.mu.Lock()
	due := c.due
	c.due = map[int]int64{}
	c.mu.Unlock()
	if len(due) == 0 {
		return
	}
	if err := c.gen.CommitOffsets(map[string]map[int]int64{c.topic: due}); err != nil {
		c.log.Warn("commit of the shards' sequence-log positions failed; the next owner answers these probes again", zap.Ints("shards", keys(due)), zap.Error(err))
		c.mu.Lock()
		for s, next := range due { // kept for the next tick, unless a later offer passed it
			c.due[s] = max(c.due[s], next)
		}
		c.mu.Unlock()
	}
}

func keys(m map[int]int64) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
