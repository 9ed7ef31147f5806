package stream_test

import (
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// TestTimedBatches: Deps.Timed hears of every batch once its output is
// acknowledged: its records, the earliest input timestamp among them, and
// the moments it passed each stage, in order (the sharded front's:
// stream/shard's TestTimedSharded).
func TestTimedBatches(t *testing.T) {
	h := newHarness(t, 2)
	var times streamtest.BatchTimes
	h.timed = times.Add
	// Input timestamps a minute ago, a millisecond apart (Kafka keeps whole
	// milliseconds), and invalid records among the pages; batch.size 64
	// makes several batches of them.
	base := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	msgs := lingerPages(300)
	sent := make(map[int64]bool, len(msgs)) // by Unix milliseconds
	for i := range msgs {
		if i%50 == 7 {
			msgs[i].Value = []byte("{not json")
		}
		msgs[i].Time = base.Add(time.Duration(i) * time.Millisecond)
		sent[msgs[i].Time.UnixMilli()] = true
	}
	c := h.process(msgs...)
	if c.Records != int64(len(msgs)) || c.Batches < 2 {
		t.Fatalf("processed %d records of %d in %d batches, want several", c.Records, len(msgs), c.Batches)
	}
	got := times.Check(t, c)
	earliest := got[0].Oldest
	for i, bt := range got {
		if !sent[bt.Oldest.UnixMilli()] {
			t.Errorf("batch %d: oldest input timestamp %v is not one produced", i, bt.Oldest)
		}
		if bt.Oldest.Before(earliest) {
			earliest = bt.Oldest
		}
	}
	if !earliest.Equal(base) {
		t.Errorf("earliest oldest input timestamp %v, want the first produced, %v", earliest, base)
	}
}
