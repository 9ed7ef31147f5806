package stream_test

import (
	"sync"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// TestTimedBatches: Deps.Timed hears of every batch once its output is
// acknowledged: its records, the earliest input timestamp among them, and
// the moments it passed each stage, in order.
func TestTimedBatches(t *testing.T) {
	h := newHarness(t, 2)
	var mu sync.Mutex
	var got []stream.BatchTimes
	h.timed = func(bt stream.BatchTimes) {
		mu.Lock()
		got = append(got, bt)
		mu.Unlock()
	}
	// Input timestamps a minute ago, a millisecond apart (Kafka keeps whole
	// milliseconds), and invalid records among the pages.
	base := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	msgs := lingerPages(300)
	for i := range msgs {
		if i%50 == 7 {
			msgs[i].Value = []byte("{not json")
		}
		msgs[i].Time = base.Add(time.Duration(i) * time.Millisecond)
	}
	sent := make(map[int64]bool, len(msgs)) // by Unix milliseconds
	for _, m := range msgs {
		sent[m.Time.UnixMilli()] = true
	}
	// Two produce calls, so that there is more than one batch.
	h.produce(msgs[:150]...)
	h.produce(msgs[150:]...)
	c, err := h.runUntil(int64(len(msgs)), nil)
	if err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	if int64(len(got)) != c.Batches || c.Batches < 2 {
		t.Fatalf("Timed called %d times for %d batches, want one a batch (and several)", len(got), c.Batches)
	}
	records := 0
	earliest := got[0].Oldest
	for i, bt := range got {
		records += bt.Records
		if !sent[bt.Oldest.UnixMilli()] {
			t.Errorf("batch %d: oldest input timestamp %v is not one produced", i, bt.Oldest)
		}
		if bt.Oldest.Before(earliest) {
			earliest = bt.Oldest
		}
		moments := []struct {
			name string
			at   time.Time
		}{{"oldest", bt.Oldest}, {"fetched", bt.Fetched}, {"gathered", bt.Gathered}, {"prepared", bt.Prepared},
			{"deciding", bt.Deciding}, {"decided", bt.Decided}, {"staged", bt.Staged}, {"emitting", bt.Emitting}, {"emitted", bt.Emitted}}
		for j := 1; j < len(moments); j++ {
			if moments[j].at.Before(moments[j-1].at) {
				t.Errorf("batch %d: %s at %v, before %s at %v", i, moments[j].name, moments[j].at, moments[j-1].name, moments[j-1].at)
			}
		}
		if bt.Emitted.Sub(bt.Oldest) > 50*time.Minute {
			t.Errorf("batch %d: emitted %v after its oldest record: a moment left unset?", i, bt.Emitted.Sub(bt.Oldest))
		}
	}
	if records != len(msgs) || int64(records) != c.Records {
		t.Errorf("the batches had %d records, want %d (counted %d)", records, len(msgs), c.Records)
	}
	if !earliest.Equal(base) {
		t.Errorf("earliest oldest input timestamp %v, want the first produced, %v", earliest, base)
	}
}
