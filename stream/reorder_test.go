package stream

import (
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
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
