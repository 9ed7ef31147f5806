package stream_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// TestTimedBatches: Deps.Timed hears of every batch once its output is
// acknowledged: its records, the earliest input timestamp among them, and
// the moments it passed each stage, in order (the sharded front's:
// stream/shard's TestTimedSharded). dedupstream_record_latency_seconds has
// each record's time from its input timestamp to then.
func TestTimedBatches(t *testing.T) {
	h := newHarness(t, 2)
	var times stream.BatchLog
	h.timed = times.Add
	reg := prometheus.NewRegistry()
	h.reg = reg
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
	began := time.Now()
	c := h.process(msgs...)
	took := time.Since(began)
	if c.Records != int64(len(msgs)) || c.Batches < 2 {
		t.Fatalf("processed %d records of %d in %d batches, want several", c.Records, len(msgs), c.Batches)
	}
	got := streamtest.CheckBatchTimes(t, c, times.Batches())
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

	// Every record, the invalid ones too, is between a minute old (less its
	// offset from base) and that plus the run when its output is acked.
	var lat *dto.Histogram
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "dedupstream_record_latency_seconds" {
			lat = mf.GetMetric()[0].GetHistogram()
		}
	}
	if lat == nil || lat.GetSampleCount() != uint64(len(msgs)) {
		t.Fatalf("dedupstream_record_latency_seconds: %v, want %d records", lat, len(msgs))
	}
	var lo, hi float64 // the sum's bounds: each record's age when the run began and when it ended
	for _, m := range msgs {
		lo += began.Sub(m.Time).Seconds()
		hi += began.Add(took).Sub(m.Time).Seconds()
	}
	if s := lat.GetSampleSum(); s < lo || s > hi {
		t.Errorf("dedupstream_record_latency_seconds sums to %.1f s, want %.1f–%.1f", s, lo, hi)
	}
}
