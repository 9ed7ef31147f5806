package stream

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
)

// dialTimeout bounds connecting to a broker, TLS and SASL included.
const dialTimeout = 10 * time.Second

func newReader(cfg Config, sec Security, log *zap.Logger, member *membership) *kafka.Reader {
	start := kafka.FirstOffset
	if cfg.Kafka.StartOffset == "latest" {
		start = kafka.LastOffset
	}
	return kafka.NewReader(kafka.ReaderConfig{
		Brokers:  cfg.Kafka.Brokers,
		GroupID:  cfg.Kafka.Group,
		Topic:    cfg.Kafka.Input,
		Dialer:   sec.dialer(cfg.Kafka.ClientID),
		MinBytes: 1,
		MaxBytes: 16 << 20,
		// MaxWait is also kafka-go's read deadline for the fetch, which asks
		// the broker to answer a quarter of it sooner. At 100 ms a late
		// answer on the busy 2-core machine now and then failed a fetch with
		// an i/o timeout, and kafka-go then dials the leader again after
		// ReadBackoffMin (100 ms) (the bench's read-back saw the same). With
		// MinBytes 1 the broker answers as soon as a record arrives, so a
		// longer MaxWait does not delay records; a Close or rebalance may
		// wait up to it for a fetch on an idle partition. Two pairs of 1M
		// runs at 500 ms had no fetch time out and tails 5–23 ms shorter,
		// within noise (BENCHMARKS.md).
		MaxWait:        500 * time.Millisecond,
		QueueCapacity:  cfg.Batch.Size,
		CommitInterval: 0, // synchronous commits: the offset is marked only after state is written
		StartOffset:    start,
		SessionTimeout: cfg.Kafka.SessionTimeout,
		// A member that died is waited for this long in a rebalance. kafka-go's
		// default, 30s, is longer than its own JoinGroup read deadline allows
		// once several members rejoin at different times: with members
		// SIGKILLed in turn the group never settled (TestSIGKILLSharded).
		RebalanceTimeout:  cfg.Kafka.SessionTimeout,
		HeartbeatInterval: cfg.Kafka.SessionTimeout / 10,
		JoinGroupBackoff:  cfg.Kafka.SessionTimeout / 10,
		Logger:            member.follow(kafkaLogger(log.Debug)),
		ErrorLogger:       kafkaLogger(log.Warn),
	})
}

func newWriter(cfg Config, sec Security, log *zap.Logger) *kafka.Writer {
	return &kafka.Writer{
		Addr:         kafka.TCP(cfg.Kafka.Brokers...),
		Balancer:     &kafka.Hash{}, // same key, same partition; keyless records spread round-robin
		RequiredAcks: kafka.RequireAll,
		BatchSize:    cfg.Batch.Size,
		BatchBytes:   int64(cfg.Kafka.MaxBatchBytes),
		BatchTimeout: time.Millisecond, // WriteMessages is synchronous: don't sit on partial batches
		MaxAttempts:  3,
		Transport:    sec.transport(cfg.Kafka.ClientID),
		ErrorLogger:  kafkaLogger(log.Warn),
	}
}

// kafkaLogger adapts kafka-go's printf-style logging to zap.
func kafkaLogger(f func(string, ...zap.Field)) kafka.LoggerFunc {
	return func(format string, args ...any) {
		f(strings.TrimSpace(fmt.Sprintf(format, args...)), zap.String("component", "kafka-go"))
	}
}

// membership follows the reader's consumer-group generations through
// kafka-go's log events, which are its only report of them: the filter is a
// member from the start of a generation's heartbeat (joined, partitions
// assigned, offsets fetched) until that heartbeat stops (a rebalance, a lost
// broker, leaving the group), and owns the input partitions the reader
// subscribed to in that generation.
type membership struct {
	joined atomic.Bool
	mu     sync.Mutex
	// owned is the input partitions of the current generation, nil between
	// generations; known is false if kafka-go's report of them could not be
	// read (then every partition counts as owned, as before).
	owned map[int]bool
	known bool
}

// Events of kafka-go v0.4: a generation's heartbeat (consumergroup.go,
// Generation.heartbeatLoop) and the reader's subscription to the
// generation's assignments (reader.go, Reader.subscribe), whose argument is
// a map keyed by a struct with a partition field.
const (
	heartbeatStarted = "started heartbeat for group"
	heartbeatStopped = "stopped heartbeat for group"
	subscribed       = "subscribed to topics and partitions"
)

func (m *membership) follow(next kafka.LoggerFunc) kafka.LoggerFunc {
	return func(format string, args ...any) {
		switch {
		case strings.HasPrefix(format, heartbeatStarted):
			m.joined.Store(true)
		case strings.HasPrefix(format, heartbeatStopped):
			m.joined.Store(false)
			m.setOwned(nil, true)
		case strings.HasPrefix(format, subscribed) && len(args) == 1:
			m.setOwned(subscribedPartitions(args[0]))
		}
		next(format, args...)
	}
}

func (m *membership) setOwned(owned map[int]bool, known bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.owned, m.known = owned, known
}

// owns returns the records of msgs whose partitions this member owns in the
// current generation: msgs itself if it owns them all, else a copy.
func (m *membership) owns(msgs []kafka.Message) []kafka.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.known || !slices.ContainsFunc(msgs, func(msg kafka.Message) bool { return !m.owned[msg.Partition] }) {
		return msgs
	}
	var kept []kafka.Message
	for _, msg := range msgs {
		if m.owned[msg.Partition] {
			kept = append(kept, msg)
		}
	}
	return kept
}

// subscribedPartitions reads the partitions of kafka-go's subscription
// report (a map keyed by an unexported struct with a partition field); false
// if it is not of that shape.
func subscribedPartitions(offsets any) (map[int]bool, bool) {
	v := reflect.ValueOf(offsets)
	if v.Kind() != reflect.Map {
		return nil, false
	}
	owned := make(map[int]bool, v.Len())
	for _, k := range v.MapKeys() {
		if k.Kind() != reflect.Struct {
			return nil, false
		}
		f := k.FieldByName("partition")
		if !f.IsValid() || !f.CanInt() {
			return nil, false
		}
		owned[int(f.Int())] = true
	}
	return owned, true
}

// commit marks the batch's offsets. A failed commit is retried a few times, then
// left: the records will be redelivered and get their stored verdicts again.
//
// Only the offsets of partitions this member owns now are committed: a batch
// fetched before a rebalance can finish after it, and kafka-go would commit
// its offsets in the new generation even for a partition now another
// member's, setting that partition's committed offset back behind the new
// owner's. A new owner that had read to the end then had nothing left to
// commit, and the group's lag stayed up for good (a two-instance sharded
// fleet stalled at its start, BENCHMARKS.md). The records not committed are
// redelivered to their new owner, which gives them their stored verdicts.
func (p *Pipeline) commit(ctx context.Context, msgs []kafka.Message) {
	if msgs = p.member.owns(msgs); len(msgs) == 0 {
		return
	}
	backoff := p.cfg.Batch.RetryBackoff
	for attempt := 1; ; attempt++ {
		err := p.reader.CommitMessages(ctx, msgs...)
		if err == nil {
			return
		}
		p.m.retries.WithLabelValues(retryCommit).Inc()
		if attempt == 5 || !sleep(ctx, backoff) {
			p.log.Warn("commit failed; records will be redelivered", zap.Int("records", len(msgs)), zap.Error(err))
			return
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
