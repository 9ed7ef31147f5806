package bench

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestTimeline(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	at := func(ms, latMS int) Sample {
		return Sample{At: t0.Add(time.Duration(ms) * time.Millisecond), Latency: time.Duration(latMS) * time.Millisecond}
	}
	// Read back out of production order, with an empty window (1.0–1.5 s).
	samples := []Sample{at(600, 30), at(0, 10), at(1700, 5), at(100, 20), at(499, 40)}
	got := timeline(samples, 500*time.Millisecond)
	want := []Window{
		{Start: t0, Records: 3, P99: 40 * time.Millisecond, Max: 40 * time.Millisecond},
		{Start: t0.Add(500 * time.Millisecond), Records: 1, P99: 30 * time.Millisecond, Max: 30 * time.Millisecond},
		{Start: t0.Add(1500 * time.Millisecond), Records: 1, P99: 5 * time.Millisecond, Max: 5 * time.Millisecond},
	}
	if len(got) != len(want) {
		t.Fatalf("timeline: %d windows %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !g.Start.Equal(w.Start) || g.Records != w.Records || g.P99 != w.P99 || g.Max != w.Max {
			t.Errorf("window %d: %+v, want %+v", i, g, w)
		}
	}
	if timeline(nil, time.Second) != nil {
		t.Error("a timeline of no samples has windows")
	}
}

func TestTickBatch(t *testing.T) {
	for _, c := range []struct {
		rate       float64
		partitions int
		want       int
	}{
		{13600, 2, 68}, // 34 a partition a tick, twice that
		{100, 2, 16},   // at least 16
		{40000, 1, 400},
		{1000, 0, 16}, // no partitions known: as one
	} {
		if got := tickBatch(c.rate, c.partitions); got != c.want {
			t.Errorf("tickBatch(%v, %d) = %d, want %d", c.rate, c.partitions, got, c.want)
		}
	}
}

func TestStageTail(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "dedupstream_stage_duration_seconds", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
	}, []string{"stage"})
	reg.MustRegister(h)
	for _, s := range []float64{0.001, 0.010, 0.020, 0.040, 0.050, 0.100} {
		h.WithLabelValues("emit").Observe(s)
	}
	h.WithLabelValues("stage").Observe(0.002)
	want := "emit 4/3/1, stage 0/0/0"
	if got := StageTail(reg); got != want {
		t.Errorf("StageTail = %q, want %q", got, want)
	}
	if got := StageSeconds(reg); got != "emit 0.22, stage 0.00" {
		t.Errorf("StageSeconds = %q", got)
	}
}
