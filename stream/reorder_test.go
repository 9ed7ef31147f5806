package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// TestReorderWaitsForExpectedPartitions: at the start of a generation a
// partition that has delivered nothing yet may still hold the earlier
// records, so a record of another partition waits for it (up to idle) once
// the generation's partitions are expected; without them, it would go at
// once (the sharded front's first batch then held one partition only, and
// near-copies there went before their originals on the other).
func TestReorderWaitsForExpectedPartitions(t *testing.T) {
	now := time.Now()
	rec := kafka.Message{Topic: "in", Partition: 0, Offset: 0, Time: now, HighWaterMark: 5}
	r := newReorder(time.Hour, 100)
	r.add(&pending{msg: rec}, now)
	if out := r.release(nil, 10, now); len(out) != 1 {
		t.Fatalf("no partition expected: released %d records, want the one buffered", len(out))
	}
	r = newReorder(time.Hour, 100)
	r.expect(1, []int{0, 1}, now)
	r.add(&pending{msg: rec}, now)
	if out := r.release(nil, 10, now); len(out) != 0 {
		t.Fatalf("partition 1 expected and silent: released %d records, want none before idle", len(out))
	}
	if out := r.release(nil, 10, now.Add(time.Hour)); len(out) != 1 {
		t.Fatalf("partition 1 silent for idle: released %d records, want the one buffered", len(out))
	}
	r.expect(1, []int{0, 1}, now.Add(2*time.Hour)) // the same generation: partition 1 stays forgotten
	r.add(&pending{msg: kafka.Message{Topic: "in", Partition: 0, Offset: 1, Time: now, HighWaterMark: 5}}, now.Add(2*time.Hour))
	if out := r.release(nil, 10, now.Add(2*time.Hour)); len(out) != 1 {
		t.Fatalf("same generation again: released %d records, want the one buffered", len(out))
	}
}

// TestOrderedPrepare: a sharded front's records are prepared while they wait
// in the reorder buffer. Released in the global order across two partitions
// (partition 1's records are the earlier ones, and arrive last), each
// batch's items are its records, in the released order, prepared as Prepare
// alone prepares them and referring to the batch's records.
func TestOrderedPrepare(t *testing.T) {
	p := &Pipeline{order: newReorder(time.Hour, 100), prep: benchPreparer(), m: newMetrics(prometheus.NewRegistry())}
	p.cfg.Batch.Size = 25
	p.pool.New = func() any { return new(prepare.Scratch) }
	stop := p.startPreparing()
	g := gen.New(gen.Options{Seed: 7, CopyRate: 0.3, EditRate: 0.01})
	t0 := time.Now()
	var in []kafka.Message
	for part := range 2 {
		for i := range 20 {
			v, _ := json.Marshal(map[string]string{"id": fmt.Sprint(part, "-", i), "html": g.Next().HTML})
			in = append(in, kafka.Message{Topic: "in", Partition: part, Offset: int64(i), HighWaterMark: 20, Value: v,
				Time: t0.Add(time.Duration(i*2+1-part) * time.Millisecond)}) // the partitions interleave in time
		}
	}
	for _, m := range in {
		p.buffer(m)
	}
	var got []kafka.Message
	for n := 0; p.order.n > 0; n++ {
		b := batch{pend: p.order.release(nil, p.cfg.Batch.Size, t0.Add(2*time.Hour))}
		if !b.fetched() {
			t.Fatal("records buffered and none released past idle")
		}
		p.prepareBatch(&b)
		if len(b.items) != len(b.msgs) || len(b.msgs) > p.cfg.Batch.Size {
			t.Fatalf("batch %d: %d items for %d records", n, len(b.items), len(b.msgs))
		}
		for i := range b.msgs {
			want := p.prep.Prepare(&b.msgs[i], new(prepare.Scratch))
			it := b.items[i]
			if it.Msg != &b.msgs[i] || it.Hash != want.Hash || !bytes.Equal(it.Sketch, want.Sketch) || (it.Err == nil) != (want.Err == nil) {
				t.Fatalf("batch %d, record %d (partition %d offset %d): item not its record's", n, i, b.msgs[i].Partition, b.msgs[i].Offset)
			}
		}
		got = append(got, b.msgs...)
	}
	stop()
	if len(got) != len(in) {
		t.Fatalf("released %d records of %d", len(got), len(in))
	}
	for i := 1; i < len(got); i++ {
		if compareMessages(&got[i-1], &got[i]) > 0 {
			t.Fatalf("record %d released before an earlier one", i)
		}
	}
}
