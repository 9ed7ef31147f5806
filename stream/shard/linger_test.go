package shard

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// trickleSharded runs a sharded filter (a front and a shard server in
// process, 2 shards) with cfg's batching over n pages produced one at a time,
// from the moment the pipeline has joined its group: the next once the
// pipeline has processed the ones before it (gap 0), or once gap has passed
// since the last. It returns the pipeline's counts. timed, if not nil, is
// the pipeline's Deps.Timed.
func trickleSharded(t *testing.T, batch stream.BatchConfig, n int, gap time.Duration, timed func(stream.BatchTimes)) stream.Counts {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: 2, MinSessionTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, run, stop := startPagesFilter(t, ctx, b.Addr(), "linger", batch, 2, timed)
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		msgs[i] = kafka.Message{Key: []byte(fmt.Sprint("p", i)),
			Value: fmt.Appendf(nil, "<html><body><p>page %d of the sharded linger test, with words enough to be a page of its own: %d</p></body></html>", i, i*7919)}
	}
	more := streamtest.Trickle(t, b.Addr(), "pages", p, msgs, gap)
	waitErr := run.WaitFor(ctx, func() bool { return !more() }, 5*time.Millisecond)
	c := p.Counts()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if waitErr != nil {
		t.Fatalf("%d of %d records processed in %d batches: %v", c.Records, n, c.Batches, waitErr)
	}
	if got := len(streamtest.ReadTopic(t, b.Addr(), "pages.out")); got != n {
		t.Fatalf("%d records on the output topic, want %d", got, n)
	}
	return c
}

// startPagesFilter starts a sharded filter over shards (a front and a shard
// server in process) as group, reading "pages" on the broker at addr and
// writing "pages.out", with batch's batching and the default sketch.
func startPagesFilter(t *testing.T, ctx context.Context, addr, group string, batch stream.BatchConfig, shards int, timed func(stream.BatchTimes)) (*stream.Pipeline, *stream.Running, func() error) {
	t.Helper()
	var cfg stream.Config
	cfg.Kafka.Brokers, cfg.Kafka.Group, cfg.Kafka.Output = []string{addr}, group, "pages.out"
	cfg.Kafka.SessionTimeout = time.Second
	cfg.Batch = batch
	cfg.EnsureDefaults()
	var sketch lsh.Config
	sketch.EnsureDefaults()
	m, err := lsh.NewMethod(sketch, nil)
	if err != nil {
		t.Fatal(err)
	}
	return startFilter(t, ctx, cfg, m, state.Options{Dir: t.TempDir()}, shards, timed)
}

// TestIdleShardedFilterDoesNotLinger: with the pipeline idle, neither the
// front nor a shard holds a batch for batch.linger. The linger here is ten
// minutes, so a front or a shard that held each batch for it would not
// answer the first record before the one-minute deadline.
func TestIdleShardedFilterDoesNotLinger(t *testing.T) {
	c := trickleSharded(t, stream.BatchConfig{Linger: 10 * time.Minute}, 3, 0, nil)
	if c.Records != 3 || c.Batches != 3 {
		t.Fatalf("records %d in %d batches, want 3 in 3 (each produced after the last was processed)", c.Records, c.Batches)
	}
}

// TestShardedHoldWhenIdleLingers: with batch.hold_when_idle the sharded
// front keeps the whole linger, so two records produced half a second apart
// share a batch; without it the first one's batch has gone long before the
// second arrives.
func TestShardedHoldWhenIdleLingers(t *testing.T) {
	for _, hold := range []bool{true, false} {
		c := trickleSharded(t, stream.BatchConfig{Linger: 2 * time.Second, HoldWhenIdle: hold}, 2, 500*time.Millisecond, nil)
		want := int64(2)
		if hold {
			want = 1
		}
		if c.Records != 2 || c.Batches != want {
			t.Fatalf("hold_when_idle %v: records %d in %d batches, want 2 in %d", hold, c.Records, c.Batches, want)
		}
	}
}

// TestTimedSharded: a sharded front reports each batch's moments to
// Deps.Timed as the single-instance pipeline does (stream's
// TestTimedBatches): one report a batch, every moment set and in stage
// order — the fetch at its earliest record, before the reorder buffer let
// the batch go.
func TestTimedSharded(t *testing.T) {
	var times stream.BatchLog
	c := trickleSharded(t, stream.BatchConfig{}, 40, 2*time.Millisecond, times.Add)
	for i, bt := range streamtest.CheckBatchTimes(t, c, times.Batches()) {
		if bt.Records == 0 {
			t.Errorf("batch %d: no records", i)
		}
	}
}

// TestShardedBacklogGoesInFullBatches: a backlog across four partitions,
// which kafka-go delivers one partition's run of records after another's,
// goes from the front's reorder buffer in batches of about batch.size. A run
// longer than the buffer fills it with one partition's records, none of which
// may go in the global order until the others deliver; past its limit the
// buffer lets one go for each that arrives, and the batch must gather those
// while the decider is busy rather than go with the first.
func TestShardedBacklogGoesInFullBatches(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: 4, MinSessionTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pages := genPages(t, 2000)
	msgs := make([]kafka.Message, len(pages))
	crawled := time.Now().Add(-time.Hour)
	for i, p := range pages {
		v, err := eval.PageRecord(p)
		if err != nil {
			t.Fatal(err)
		}
		// a millisecond apart, as a crawl's: the global order interleaves the partitions
		msgs[i] = kafka.Message{Key: []byte(p.ID), Value: v, Time: crawled.Add(time.Duration(i) * time.Millisecond)}
	}
	streamtest.Produce(t, b.Addr(), "pages", msgs...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	batch := stream.BatchConfig{Size: 25} // the reorder buffer holds 8 batches: 200 records, fewer than a partition's run
	p, run, stop := startPagesFilter(t, ctx, b.Addr(), "backlog", batch, 1, nil)
	waitErr := run.WaitFor(ctx, func() bool { return p.Counts().Records >= int64(len(msgs)) }, 5*time.Millisecond)
	c := p.Counts()
	if err := errors.Join(waitErr, stop()); err != nil {
		t.Fatalf("%d of %d records processed: %v", c.Records, len(msgs), err)
	}
	// 80 full batches would hold them all; the partitions' runs and the
	// first records' waits for the partitions not heard from yet cut some
	// short.
	if max := int64(3 * len(msgs) / batch.Size); c.Batches > max {
		t.Errorf("%d records in %d batches (%.0f a batch), want at most %d batches of batch.size %d",
			c.Records, c.Batches, float64(c.Records)/float64(c.Batches), max, batch.Size)
	}
	t.Logf("%d records in %d batches", c.Records, c.Batches)
}
