package stream

import (
	"context"
	"errors"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
)

// emit routes each record by its outcome and writes the results.
func (p *Pipeline) emit(ctx context.Context, in []kafka.Message, outs []outcome) error {
	msgs := make([]kafka.Message, 0, len(in))
	for i := range in {
		if m, ok := p.route.route(&in[i], &outs[i]); ok {
			msgs = append(msgs, m)
		}
	}
	return p.write(ctx, msgs)
}

// write writes msgs and waits for the broker's acknowledgement, retrying failed
// messages with backoff until they are written or ctx ends.
func (p *Pipeline) write(ctx context.Context, msgs []kafka.Message) error {
	backoff := p.cfg.Batch.RetryBackoff
	for len(msgs) > 0 {
		err := p.writer.WriteMessages(ctx, msgs...)
		if err == nil {
			return nil
		}
		msgs = failedOnly(msgs, err)
		p.m.retries.WithLabelValues(retryWrite).Inc()
		p.log.Warn("write failed, retrying", zap.Int("messages", len(msgs)), zap.Duration("backoff", backoff), zap.Error(err))
		if !sleep(ctx, backoff) {
			return errors.Join(errors.New("emit abandoned at shutdown; the batch will be replayed"), err)
		}
		backoff = min(2*backoff, 30*time.Second)
	}
	return nil
}

// failedOnly keeps the messages a write error reports as failed; when the error
// is not per message, all of them.
func failedOnly(msgs []kafka.Message, err error) []kafka.Message {
	var werrs kafka.WriteErrors
	if !errors.As(err, &werrs) || len(werrs) != len(msgs) {
		return msgs
	}
	failed := msgs[:0]
	for i, e := range werrs {
		if e != nil {
			failed = append(failed, msgs[i])
		}
	}
	return failed
}
