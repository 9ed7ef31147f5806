package shard

import (
	"github.com/prometheus/client_golang/prometheus"
)

// frontMetrics are a Front's series.
type frontMetrics struct {
	probes, finals, resent, stale prometheus.Counter
	pending                       prometheus.Gauge
	wait                          prometheus.Histogram
}

func newFrontMetrics(reg prometheus.Registerer) *frontMetrics {
	m := &frontMetrics{
		probes: prometheus.NewCounter(prometheus.CounterOpts{Name: "dedupstream_index_probes_total",
			Help: "Probes appended to the sequence log (one per document and shard its keys reach, a document once per record), appended again ones included; finals are counted apart."}),
		finals: prometheus.NewCounter(prometheus.CounterOpts{Name: "dedupstream_index_finals_total",
			Help: "Final records written: joined verdicts for shards whose answer differed."}),
		resent: prometheus.NewCounter(prometheus.CounterOpts{Name: "dedupstream_index_probes_resent_total",
			Help: "Probes sent again after index.answer_timeout without an answer."}),
		stale: prometheus.NewCounter(prometheus.CounterOpts{Name: "dedupstream_index_stale_answers_total",
			Help: "Answers read for no document in flight here (repeats, other fronts', earlier runs')."}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dedupstream_index_pending_documents",
			Help: "Documents whose shard answers this front is waiting for."}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "dedupstream_index_wait_seconds",
			Help:    "Time a batch waited for its shards' answers after its probes were written.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16)}),
	}
	if reg != nil {
		reg.MustRegister(m.probes, m.finals, m.resent, m.stale, m.pending, m.wait)
	}
	return m
}

// serverMetrics are a Server's series, labelled by shard where it matters.
type serverMetrics struct {
	owned     prometheus.Gauge
	docs      *prometheus.GaugeVec
	applied   *prometheus.CounterVec
	answered  *prometheus.CounterVec
	late      *prometheus.CounterVec
	held      *prometheus.GaugeVec
	expired   *prometheus.CounterVec
	rebuild   *prometheus.GaugeVec
	lag       *prometheus.GaugeVec
	malformed prometheus.Counter
	readers   prometheus.Gauge
}

func newServerMetrics(reg prometheus.Registerer) *serverMetrics {
	shard := []string{"shard"}
	m := &serverMetrics{
		owned: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dedupstream_shards_owned",
			Help: "Index shards this instance owns in the current generation of the index group."}),
		docs: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "dedupstream_shard_documents",
			Help: "Documents stored in an owned shard (approximate)."}, shard),
		applied: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dedupstream_shard_records_applied_total",
			Help: "Sequence-log records applied to a shard, rebuilds included."}, shard),
		answered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dedupstream_shard_answers_total",
			Help: "Answers a shard wrote."}, shard),
		late: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dedupstream_shard_missed_pairs_total",
			Help: "Documents a shard stored behind one it had stored before in the sequence log's order, whose pairs it could miss; applying the log in order, it counts none."}, shard),
		held: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "dedupstream_shard_held_answers",
			Help: "Answers a shard holds back until the document they matched is settled by its front (its cluster known)."}, shard),
		expired: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "dedupstream_shard_settle_expired_total",
			Help: "Documents whose fronts never settled them within 2 minutes; their duplicates were answered with the clusters the shard held."}, shard),
		rebuild: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "dedupstream_shard_rebuild_remaining_records",
			Help: "Sequence-log records a shard must apply before it answers again (0: serving)."}, shard),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "dedupstream_shard_lag_records",
			Help: "Records behind the end of the sequence log, at the shard's last batch."}, shard),
		malformed: prometheus.NewCounter(prometheus.CounterOpts{Name: "dedupstream_shard_malformed_records_total",
			Help: "Sequence-log records that could not be decoded and were skipped."}),
		readers: prometheus.NewGauge(prometheus.GaugeOpts{Name: "dedupstream_shard_sequence_readers",
			Help: "Readers of the sequence log open here: one while the shards held here read at one offset, more while some are behind the others (rebuilding, or slower)."}),
	}
	if reg != nil {
		reg.MustRegister(m.owned, m.docs, m.applied, m.answered, m.late, m.held, m.expired, m.rebuild, m.lag, m.malformed, m.readers)
	}
	return m
}
