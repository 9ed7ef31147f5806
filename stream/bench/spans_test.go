package bench

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dedupstream/dedupstream/stream"
)

// timesOf returns BatchTimes whose spans (SpanNames' order) are spans, in
// milliseconds, from t0.
func timesOf(t0 time.Time, spans ...int) stream.BatchTimes {
	at := make([]time.Time, len(spans)+1)
	at[0] = t0
	for i, ms := range spans {
		at[i+1] = at[i].Add(time.Duration(ms) * time.Millisecond)
	}
	return stream.BatchTimes{Records: 1, Oldest: at[0], Fetched: at[1], Gathered: at[2], Prepared: at[3],
		Deciding: at[4], Decided: at[5], Staged: at[6], Emitting: at[7], Emitted: at[8]}
}

// TestSpans: each span is the time between two moments, in SpanNames' order,
// and they add up to the batch's whole time.
func TestSpans(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := Spans(timesOf(t0, 1, 2, 3, 4, 5, 6, 7, 8))
	var sum time.Duration
	for i, d := range s {
		if want := time.Duration(i+1) * time.Millisecond; d != want {
			t.Errorf("span %s = %v, want %v", SpanNames[i], d, want)
		}
		sum += d
	}
	if sum != 36*time.Millisecond {
		t.Errorf("spans add up to %v, want 36ms", sum)
	}
}

// TestMeanSpans: the slowest share is chosen by the whole time, at least one
// batch, and averaged span by span.
func TestMeanSpans(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var ts []stream.BatchTimes
	for i := 0; i < 98; i++ { // fast: 1 ms fetch, 1 ms emit
		ts = append(ts, timesOf(t0, 1, 0, 0, 0, 0, 0, 0, 1))
	}
	ts = append(ts, timesOf(t0, 1, 0, 0, 0, 0, 30, 0, 1), timesOf(t0, 1, 0, 0, 0, 0, 0, 0, 40)) // one slow stage, one slow emit
	all, slow := MeanSpans(ts, 0.02)
	if all.Batches != 100 || slow.Batches != 2 {
		t.Fatalf("batches %d and %d, want 100 and 2", all.Batches, slow.Batches)
	}
	us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	if got := slow.Mean[5]; got != us(15000) {
		t.Errorf("slowest 2%%: stage %v, want 15ms", got)
	}
	if got := slow.Mean[7]; got != us(20500) {
		t.Errorf("slowest 2%%: emit %v, want 20.5ms", got)
	}
	if got := slow.Total(); got != us(36500) { // 32 and 41
		t.Errorf("slowest 2%%: %v in all, want 36.5ms", got)
	}
	if got := all.Total(); got != us(2690) { // 98 × 2, 32 and 41
		t.Errorf("all: %v in all, want 2.69ms", got)
	}
	if _, slow := MeanSpans(ts[:3], 0.02); slow.Batches != 1 || slow.Total() != us(2000) {
		t.Errorf("a share under one batch: %d batches, %v; want the slowest one, 2ms", slow.Batches, slow.Total())
	}
	if all, slow := MeanSpans(nil, 0.02); all.Batches != 0 || slow.Batches != 0 || all.Total() != 0 {
		t.Errorf("no batches: %+v %+v", all, slow)
	}
}

// TestMeasured: a latency run's measured batches are those whose records
// were all produced from its start on (to the millisecond, as Kafka keeps
// timestamps), so the warm-up's batches are left out.
func TestMeasured(t *testing.T) {
	start := time.Unix(1000, 123_456_789) // 1000.123456789 s
	var ts []stream.BatchTimes
	for _, oldest := range []time.Time{start.Add(-time.Second), start.Truncate(time.Millisecond), start.Add(time.Millisecond)} {
		ts = append(ts, stream.BatchTimes{Oldest: oldest})
	}
	got := Measured(ts, start)
	if len(got) != 2 || !got[0].Oldest.Equal(start.Truncate(time.Millisecond)) {
		t.Fatalf("Measured kept %d batches (%v), want the two from the start's millisecond on", len(got), got)
	}
}

// TestHistogramQuantiles: the quantile is interpolated within its bucket, as
// histogram_quantile does, and is the last bound past the last bucket.
func TestHistogramQuantiles(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "x_seconds", Buckets: []float64{1, 2, 4}})
	reg.MustRegister(h)
	if _, ok := HistogramQuantiles(reg, "x_seconds", 0.5); ok {
		t.Errorf("an empty histogram gave a quantile")
	}
	for _, v := range []float64{0.5, 0.5, 1.5, 1.5, 3, 3, 3, 3, 10, 10} { // 2 ≤ 1, 4 ≤ 2, 8 ≤ 4, 10 in all
		h.Observe(v)
	}
	for _, c := range []struct{ q, want float64 }{
		{0.1, 0.5}, // rank 1 of the first bucket's 2: halfway from 0 to 1
		{0.3, 1.5}, // rank 3: halfway through (1, 2], which holds ranks 3 and 4
		{0.6, 3},   // rank 6: halfway through (2, 4], ranks 5 to 8
		{0.99, 4},  // past the last finite bound
	} {
		if got, ok := HistogramQuantiles(reg, "x_seconds", c.q); !ok || got[0] != c.want {
			t.Errorf("q %v: %v (%t), want %v", c.q, got, ok, c.want)
		}
	}
	if _, ok := HistogramQuantiles(reg, "y_seconds", 0.5); ok {
		t.Errorf("a histogram not gathered gave a quantile")
	}
}
