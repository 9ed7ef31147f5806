package stream

import (
	"context"
	"fmt"
	"strings"
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
// broker, leaving the group).
type membership struct{ joined atomic.Bool }

// Heartbeat events of kafka-go v0.4 (consumergroup.go, Generation.heartbeatLoop).
const (
	heartbeatStarted = "started heartbeat for group"
	heartbeatStopped = "stopped heartbeat for group"
)

func (m *membership) follow(next kafka.LoggerFunc) kafka.LoggerFunc {
	return func(format string, args ...any) {
		switch {
		case strings.HasPrefix(format, heartbeatStarted):
			m.joined.Store(true)
		case strings.HasPrefix(format, heartbeatStopped):
			m.joined.Store(false)
		}
		next(format, args...)
	}
}

// commit marks the batch's offsets. A failed commit is retried a few times, then
// left: the records will be redelivered and get their stored verdicts again.
func (p *Pipeline) commit(ctx context.Context, msgs []kafka.Message) {
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
