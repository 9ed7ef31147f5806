package stream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/prepare"
)

// emission is one batch's output: the messages to write, each with the
// index of the input record it stands for in its WriterData.
type emission struct {
	p    *Pipeline
	in   []kafka.Message
	outs []outcome
}

// emit routes each record by its outcome and writes the results.
func (p *Pipeline) emit(ctx context.Context, in []kafka.Message, outs []outcome) error {
	e := &emission{p: p, in: in, outs: outs}
	msgs := make([]kafka.Message, 0, len(in))
	for i := range in {
		m, ok := p.route.route(&in[i], &outs[i])
		if !ok {
			continue
		}
		if int64(totalSize(&m)) > p.writer.BatchBytes && outs[i].Verdict != Invalid {
			// Cannot be sent at all: dead-lettered before it is tried.
			m = e.oversized(i, fmt.Sprintf("%d bytes with verdict headers, more than the %d a produce batch to %s may hold", totalSize(&m), p.writer.BatchBytes, m.Topic))
		}
		m.WriterData = i
		msgs = append(msgs, m)
	}
	return p.write(ctx, msgs, e.refused)
}

// oversized turns record i's outcome into an Oversized dead letter and
// returns the message that carries it. The record was decided and staged
// before the write that refused it, so a replay decides it alike and
// dead-letters it again.
func (e *emission) oversized(i int, why string) kafka.Message {
	e.outs[i] = outcome{Decision: Decision{Verdict: Invalid}, err: &prepare.InputError{
		Stage: StageProduce, Class: "dedupstream.Oversized", Msg: "output record refused: " + why,
	}}
	m, _ := e.p.route.route(&e.in[i], &e.outs[i])
	m.WriterData = i
	return m
}

// StageProduce is the __connect.errors.stage of a record the output topic
// refused (too large for its max.message.bytes).
const StageProduce = "PRODUCE"

// refused is called with a message the broker refused, alone in its batch,
// as too large. It returns its dead letter, or an error if the message was
// the dead letter already.
func (e *emission) refused(m *kafka.Message, err error) (kafka.Message, error) {
	i, ok := m.WriterData.(int)
	if !ok || e.outs[i].Verdict == Invalid {
		return kafka.Message{}, fmt.Errorf("dead letter of %s/%d/%d (%d bytes) refused by %s as too large, so it cannot be dead-lettered either; "+
			"raise max.message.bytes of %s or lower decode.max_message_bytes: %w", m.Topic, m.Partition, m.Offset, totalSize(m), m.Topic, m.Topic, err)
	}
	return e.oversized(i, fmt.Sprintf("%s refused it as too large (%d bytes with verdict headers): %v", m.Topic, totalSize(m), err)), nil
}

// totalSize is a message's size as kafka-go counts it against a writer's
// BatchBytes (its Message.totalSize, which is unexported): the v0 framing
// of key and value, and the headers with varint lengths.
func totalSize(m *kafka.Message) int {
	n := 4 + 1 + 1 + 4 + len(m.Key) + 4 + len(m.Value) + 8 + varintLen(len(m.Headers))
	for _, h := range m.Headers {
		n += varintLen(len(h.Key)) + len(h.Key) + varintLen(len(h.Value)) + len(h.Value)
	}
	return n
}

// varintLen is the length of n as a zig-zag varint.
func varintLen(n int) int {
	u, l := uint64(n)<<1, 1
	for u >= 0x80 {
		u >>= 7
		l++
	}
	return l
}

// write writes msgs and waits for the broker's acknowledgement, retrying
// failed messages with backoff until they are written or ctx ends. A batch
// the broker refuses as too large is split and sent again (send); a message
// refused alone is replaced by what tooLarge returns for it (its dead
// letter), or the write fails with tooLarge's error: a record that can
// never be written stops the pipeline instead of being retried forever.
// While writes fail, the pipeline's health says so (Health).
func (p *Pipeline) write(ctx context.Context, msgs []kafka.Message, tooLarge func(*kafka.Message, error) (kafka.Message, error)) error {
	backoff := p.cfg.Batch.RetryBackoff
	for len(msgs) > 0 {
		failed, err := p.send(ctx, msgs, tooLarge)
		if err == nil {
			p.health.wrote()
			return nil
		}
		var fatal fatalWrite
		if errors.As(err, &fatal) {
			return fatal.err
		}
		msgs = failed
		p.health.writeFailed(msgs, err)
		p.m.retries.WithLabelValues(retryWrite).Inc()
		p.log.Warn("write failed, retrying", zap.Int("messages", len(msgs)), zap.Strings("topics", topicsOf(msgs)),
			zap.Duration("backoff", backoff), zap.Error(err))
		if !sleep(ctx, backoff) {
			return errors.Join(errors.New("emit abandoned at shutdown; the batch will be replayed"), err)
		}
		backoff = min(2*backoff, 30*time.Second)
	}
	return nil
}

// fatalWrite is an error of send that retrying cannot mend.
type fatalWrite struct{ err error }

func (f fatalWrite) Error() string { return f.err.Error() }

// send writes msgs once. It returns the messages that failed and why; a
// failure that retrying cannot mend comes as a fatalWrite. Messages the
// broker refused as too large (MESSAGE_TOO_LARGE: their batch exceeded the
// topic's max.message.bytes) are sent again in halves until each goes or is
// refused alone, when tooLarge replaces it (nil tooLarge: fatal).
func (p *Pipeline) send(ctx context.Context, msgs []kafka.Message, tooLarge func(*kafka.Message, error) (kafka.Message, error)) ([]kafka.Message, error) {
	err := p.writer.WriteMessages(ctx, msgs...)
	if err == nil {
		return nil, nil
	}
	var one kafka.MessageTooLargeError // kafka-go's own check against BatchBytes: nothing was sent
	if errors.As(err, &one) {
		return p.sendReplaced(ctx, one.Remaining, one.Message, err, tooLarge)
	}
	large, failed := splitTooLarge(msgs, err)
	if len(large) == 0 {
		return failed, err
	}
	if len(large) == 1 {
		return p.sendReplaced(ctx, failed, large[0], err, tooLarge)
	}
	var errs []error
	for _, half := range [][]kafka.Message{large[:len(large)/2], large[len(large)/2:]} {
		f, err := p.send(ctx, half, tooLarge)
		if errors.As(err, new(fatalWrite)) {
			return nil, err
		}
		failed, errs = append(failed, f...), append(errs, err)
	}
	if len(failed) == 0 {
		return nil, nil
	}
	return failed, errors.Join(errs...)
}

// sendReplaced sends rest and the replacement tooLarge gives for m.
func (p *Pipeline) sendReplaced(ctx context.Context, rest []kafka.Message, m kafka.Message, cause error,
	tooLarge func(*kafka.Message, error) (kafka.Message, error)) ([]kafka.Message, error) {
	if tooLarge == nil {
		return nil, fatalWrite{fmt.Errorf("record of %d bytes to %s refused as too large: %w", totalSize(&m), m.Topic, cause)}
	}
	r, err := tooLarge(&m, cause)
	if err != nil {
		return nil, fatalWrite{err}
	}
	p.log.Warn("output record too large for its topic: dead-lettered", zap.String("topic", m.Topic), zap.Int("bytes", totalSize(&m)), zap.Error(cause))
	return p.send(ctx, append(rest, r), tooLarge)
}

// splitTooLarge sorts the messages a write error reports as failed into
// those refused as too large and the others; when the error is not per
// message, all of them failed otherwise.
func splitTooLarge(msgs []kafka.Message, err error) (large, failed []kafka.Message) {
	var werrs kafka.WriteErrors
	if !errors.As(err, &werrs) || len(werrs) != len(msgs) {
		return nil, msgs
	}
	for i, e := range werrs {
		switch {
		case e == nil:
		case errors.Is(e, kafka.MessageSizeTooLarge):
			large = append(large, msgs[i])
		default:
			failed = append(failed, msgs[i])
		}
	}
	return large, failed
}

// topicsOf lists the topics of msgs, each once.
func topicsOf(msgs []kafka.Message) []string {
	var ts []string
	for i := range msgs {
		if !slices.Contains(ts, msgs[i].Topic) {
			ts = append(ts, msgs[i].Topic)
		}
	}
	return ts
}
