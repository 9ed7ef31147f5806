package stream

import (
	"context"
	"fmt"
	"maps"
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

// SendAtOnce is the BatchTimeout of writers whose every WriteMessages is
// synchronous, from one goroutine, and carries all there is to send (a
// batch's records): kafka-go sends a batch that is not full when its
// BatchTimeout has passed, even a synchronous call's, so a 1 ms timeout
// cost every emit a millisecond or more (dedupstream bench). A call's
// records for a partition join its batch under one lock,
// which the timer's flush waits for, so a timeout this short does not split
// them.
const SendAtOnce = time.Microsecond

func newWriter(cfg Config, sec Security, log *zap.Logger) *kafka.Writer {
	return &kafka.Writer{
		Addr:         kafka.TCP(cfg.Kafka.Brokers...),
		Balancer:     &kafka.Hash{}, // same key, same partition; keyless records spread round-robin
		RequiredAcks: kafka.RequireAll,
		BatchSize:    cfg.Batch.Size,
		BatchBytes:   int64(cfg.Kafka.MaxBatchBytes),
		BatchTimeout: SendAtOnce,
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
	// owned maps the input partitions of the current generation to the
	// offsets the reader started them at (negative: none committed); nil
	// between generations. known is false until kafka-go's report of them has
	// been read (then every record counts as owned, as before this check).
	owned map[int]int64
	known bool
	gen   int   // subscription reports read: a new one for each generation
	parts []int // owned's partitions, listed when the report is read
}

// assigned returns the input partitions of the current generation and a
// number that changes with each generation (nil partitions: not known). The
// slice is shared: the caller must not modify it.
func (m *membership) assigned() (gen int, parts []int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen, m.parts
}

// Events of kafka-go v0.4: a generation's heartbeat (consumergroup.go,
// Generation.heartbeatLoop) and the reader's subscription to the
// generation's assignments (reader.go, Reader.subscribe), whose argument
// maps a struct with a partition field to the partition's start offset. A
// generation's heartbeat has stopped before the next one's subscription is
// reported (the consumer group waits for the old generation's goroutines).
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
			m.mu.Lock()
			m.owned, m.parts = nil, nil // owns nothing until the next subscription (if reports are read at all)
			m.mu.Unlock()
		case strings.HasPrefix(format, subscribed) && len(args) == 1:
			owned, ok := subscribedPartitions(args[0])
			m.mu.Lock()
			m.owned, m.known, m.parts = owned, ok, slices.Collect(maps.Keys(owned))
			m.gen++
			m.mu.Unlock()
		}
		next(format, args...)
	}
}

// owns returns the records of msgs that this member may commit: of a
// partition it owns in the current generation, and not behind the offset the
// generation started that partition at (a record fetched in an earlier
// generation, before another member committed past it). It returns msgs
// itself if that is all of them, else a copy.
func (m *membership) owns(msgs []kafka.Message) []kafka.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	notMine := func(msg kafka.Message) bool {
		start, ok := m.owned[msg.Partition]
		return !ok || msg.Offset+1 < start
	}
	if !m.known || !slices.ContainsFunc(msgs, notMine) {
		return msgs
	}
	return slices.DeleteFunc(slices.Clone(msgs), notMine)
}

// subscribedPartitions reads kafka-go's subscription report: a map from an
// unexported struct with a partition field to the offset the partition
// starts at. False if it is not of that shape.
func subscribedPartitions(offsets any) (map[int]int64, bool) {
	v := reflect.ValueOf(offsets)
	if v.Kind() != reflect.Map {
		return nil, false
	}
	owned := make(map[int]int64, v.Len())
	for it := v.MapRange(); it.Next(); {
		k := it.Key()
		if k.Kind() != reflect.Struct {
			return nil, false
		}
		f := k.FieldByName("partition")
		if !f.IsValid() || !f.CanInt() || !it.Value().CanInt() {
			return nil, false
		}
		owned[int(f.Int())] = it.Value().Int()
	}
	return owned, true
}

// commit marks the batch's offsets. A failed commit is retried a few times, then
// left: the records will be redelivered and get their stored verdicts again.
//
// Each attempt commits only what this member owns now (membership.owns): a
// batch fetched before a rebalance can finish after it, and kafka-go would
// commit its offsets in the new generation even for a partition now another
// member's, setting that partition's committed offset back behind the new
// owner's. A new owner that had read to the end then had nothing left to
// commit, and the group's lag stayed up for good (a two-instance sharded
// fleet stalled at its start, BENCHMARKS.md). The records not committed are
// read again by whoever owns their partition next, and get their stored
// verdicts.
func (p *Pipeline) commit(ctx context.Context, all []kafka.Message) {
	backoff := p.cfg.Batch.RetryBackoff
	for attempt := 1; ; attempt++ {
		msgs := p.member.owns(all)
		if len(msgs) == 0 {
			return
		}
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
