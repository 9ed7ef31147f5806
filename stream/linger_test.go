package stream_test

import (
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// trickle runs a pipeline while producing msgs one at a time
// (streamtest.Trickle: the next once the ones before are processed, gap 0,
// or once gap has passed) and returns the pipeline's counts.
func (h *harness) trickle(msgs []kafka.Message, gap time.Duration) stream.Counts {
	h.t.Helper()
	var more func() bool
	c, err := h.runWhile(func(p *stream.Pipeline) bool {
		if more == nil {
			more = streamtest.Trickle(h.t, h.broker.Addr(), topicIn, p, msgs, gap)
		}
		return more()
	}, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func lingerPages(n int) []kafka.Message {
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		msgs[i] = kafka.Message{Key: []byte("p" + itoa(i)), Value: []byte("<html><body><p>page " + itoa(i) +
			" of the linger test, with words enough to be a page of its own: " + itoa(i*7919) + "</p></body></html>")}
	}
	return msgs
}

// TestIdlePipelineDoesNotLinger: with the pipeline idle, a batch goes as
// soon as its records are in, not after batch.linger. The linger here is ten
// minutes, so a pipeline that held each batch for it would not process the
// first record before the harness's one-minute deadline.
func TestIdlePipelineDoesNotLinger(t *testing.T) {
	h := newHarness(t, 1)
	h.cfg.Batch.Linger = 10 * time.Minute
	c := h.trickle(lingerPages(3), 0)
	if c.Records != 3 || c.Batches != 3 {
		t.Fatalf("records %d in %d batches, want 3 in 3 (each produced after the last was processed)", c.Records, c.Batches)
	}
	if got := len(h.readAll(topicOut)); got != 3 {
		t.Fatalf("%d records on the output topic, want 3", got)
	}
}

// TestHoldWhenIdleLingers: batch.hold_when_idle keeps the whole linger, so
// two records produced half a second apart share a batch; without it, the
// first one's batch has gone long before the second arrives.
func TestHoldWhenIdleLingers(t *testing.T) {
	for _, hold := range []bool{true, false} {
		h := newHarness(t, 1)
		h.cfg.Batch.Linger = 5 * time.Second
		h.cfg.Batch.HoldWhenIdle = hold
		c := h.trickle(lingerPages(2), 500*time.Millisecond)
		want := int64(2)
		if hold {
			want = 1
		}
		if c.Records != 2 || c.Batches != want {
			t.Fatalf("hold_when_idle %v: records %d in %d batches, want 2 in %d", hold, c.Records, c.Batches, want)
		}
	}
}
