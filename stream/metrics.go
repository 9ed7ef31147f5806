package stream

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the pipeline's Prometheus collectors, named per DESIGN.md:
// prefix dedupstream_, base units, counters ending in _total.
type metrics struct {
	records    *prometheus.CounterVec // by verdict
	deadLetter *prometheus.CounterVec // by exception class
	dropped    prometheus.Counter
	replayed   prometheus.Counter
	candidates prometheus.Counter
	capped     *prometheus.CounterVec // by cap
	stage      *prometheus.HistogramVec
	batchSize  prometheus.Histogram
	retries    *prometheus.CounterVec // by operation
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		records: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dedupstream_records_total", Help: "Input records decided, by verdict.",
		}, []string{"verdict"}),
		deadLetter: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dedupstream_dead_letter_total", Help: "Records sent to the dead-letter topic, by error class.",
		}, []string{"class"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dedupstream_dropped_total", Help: "Duplicates dropped in drop mode with no duplicates topic.",
		}),
		replayed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dedupstream_replayed_total", Help: "Records redelivered after a restart that kept their stored verdict.",
		}),
		candidates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dedupstream_candidates_verified_total", Help: "LSH candidates whose similarity was verified.",
		}),
		capped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dedupstream_caps_hit_total", Help: "Times a work bound cut a lookup or a document, by cap.",
		}, []string{"cap"}),
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "dedupstream_stage_duration_seconds", Help: "Time per batch spent in each pipeline stage.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}, []string{"stage"}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "dedupstream_batch_records", Help: "Records per processed batch.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14),
		}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dedupstream_retries_total", Help: "Retried broker operations, by operation.",
		}, []string{"op"}),
	}
	if reg != nil {
		reg.MustRegister(m.records, m.deadLetter, m.dropped, m.replayed, m.candidates,
			m.capped, m.stage, m.batchSize, m.retries)
	}
	return m
}
