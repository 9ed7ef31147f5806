package stream

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestKnownLabelsStartAtZero: every retried operation and cap is exported
// at zero before its first event, so rate() and alerts see it.
func TestKnownLabelsStartAtZero(t *testing.T) {
	reg := prometheus.NewRegistry()
	newMetrics(reg)
	got := samples(t, reg)
	f := func(series string) {
		t.Helper()
		if v, ok := got[series]; !ok || v != 0 {
			t.Errorf("%s = %v (exported %t), want 0 before the first event", series, v, ok)
		}
	}
	f("dedupstream_retries_total{op=fetch}")
	f("dedupstream_retries_total{op=write}")
	f("dedupstream_retries_total{op=commit}")
	f("dedupstream_caps_hit_total{cap=bucket}")
	f("dedupstream_caps_hit_total{cap=candidates}")
	f("dedupstream_caps_hit_total{cap=tokens}")
}

// samples returns the value of every counter and gauge in reg by series:
// its name, then {label=value} for each label.
func samples(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]float64)
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			series := mf.GetName()
			for _, l := range m.GetLabel() {
				series += "{" + l.GetName() + "=" + l.GetValue() + "}"
			}
			got[series] = m.GetCounter().GetValue() + m.GetGauge().GetValue() // the one that is not nil
		}
	}
	return got
}
