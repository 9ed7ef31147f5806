package stream

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
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
	// lookupCands is the candidates verified per LSH lookup; similarity the
	// estimated resemblance of each verified candidate; lag the records of
	// each input partition behind its high watermark at the last commit.
	lookupCands prometheus.Histogram
	similarity  prometheus.Histogram
	lag         *prometheus.GaugeVec   // by partition
	charset     *prometheus.CounterVec // by charset
	// latency is each record's time from its input timestamp to its
	// output's acknowledgement (observeLatency).
	latency prometheus.Histogram
	// stalled is how long each stall has lasted (health): writes to a
	// topic failing, or an owned input partition not moving.
	stalled *prometheus.GaugeVec // by reason, topic and partition
}

// The broker operations dedupstream_retries_total counts, its op label.
const (
	retryFetch  = "fetch"
	retryWrite  = "write"
	retryCommit = "commit"
)

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
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "dedupstream_record_latency_seconds",
			Help:    "Time from each input record's timestamp (its producer's clock, or the broker's for LogAppendTime) to the acknowledgement of its output: end to end, as Kafka Streams' record-e2e-latency.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 18),
		}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "dedupstream_batch_records", Help: "Records per processed batch.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14),
		}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dedupstream_retries_total", Help: "Retried broker operations, by operation.",
		}, []string{"op"}),
		lookupCands: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "dedupstream_lookup_candidates", Help: "Candidates verified per LSH lookup (exact duplicates and replays do no lookup).",
			Buckets: []float64{0, 1, 2, 4, 8, 16, 32, 64, 128},
		}),
		similarity: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "dedupstream_candidate_similarity_ratio", Help: "Estimated resemblance of each verified LSH candidate to the new document.",
			Buckets: prometheus.LinearBuckets(0.05, 0.05, 20),
		}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "dedupstream_consumer_lag_records",
			Help: "Records of each input partition not yet committed: the high watermark seen at the last commit minus the committed offset.",
		}, []string{"partition"}),
		stalled: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "dedupstream_stalled_seconds",
			Help: "How long writes to a topic (reason write) or an owned input partition with records not committed (reason input) have not progressed; /readyz answers 503 once one passes admin.stall_after.",
		}, []string{"reason", "topic", "partition"}),
		charset: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dedupstream_charset_decoded_total", Help: "Valid input records read in an encoding other than UTF-8, by its WHATWG name.",
		}, []string{"charset"}),
	}
	// Known label values start at zero, so rate() and alerts see them before the first event.
	for _, op := range []string{retryFetch, retryWrite, retryCommit} {
		m.retries.WithLabelValues(op)
	}
	for _, c := range []string{"bucket", "candidates", "tokens"} {
		m.capped.WithLabelValues(c)
	}
	if reg != nil {
		reg.MustRegister(m.records, m.deadLetter, m.dropped, m.replayed, m.candidates,
			m.capped, m.stage, m.batchSize, m.retries, m.lookupCands, m.similarity, m.lag, m.charset, m.latency, m.stalled)
	}
	return m
}

// BatchTimes are the moments a batch passed from one stage to the next, up
// to its output's acknowledgement: where its records' latency went
// (Deps.Timed). In sharded mode Gathered is when the reorder buffer released
// the batch, Deciding is after the ask stage (and any batches in flight
// before it), Decided includes waiting for the shards' answers, and Staged
// is Decided.
type BatchTimes struct {
	Records int
	// Oldest is the earliest input timestamp among its records: Kafka's,
	// in whole milliseconds, set by the producer (or by the broker, for a
	// topic of LogAppendTime), so on another host's clock.
	Oldest   time.Time
	Fetched  time.Time // the first of its records fetched (sharded mode: the first to enter the reorder buffer)
	Gathered time.Time // the fetch let the batch go (batch.linger's rule)
	Prepared time.Time // its last records prepared
	Deciding time.Time // taken up by the decider
	Decided  time.Time // verdicts decided
	Staged   time.Time // state writes staged
	Emitting time.Time // taken up by the emitter
	Emitted  time.Time // its output acknowledged
}

// MomentNames name BatchTimes.Moments, in order.
var MomentNames = [...]string{"oldest input timestamp", "fetched", "gathered", "prepared", "deciding", "decided", "staged", "emitting", "emitted"}

// Moments returns t's moments in stage order, from Oldest to Emitted.
func (t BatchTimes) Moments() [len(MomentNames)]time.Time {
	return [...]time.Time{t.Oldest, t.Fetched, t.Gathered, t.Prepared, t.Deciding, t.Decided, t.Staged, t.Emitting, t.Emitted}
}

// BatchLog keeps the BatchTimes a pipeline reports: its Add is a
// Deps.Timed (bench's latency mode, tests).
type BatchLog struct {
	mu    sync.Mutex
	times []BatchTimes
}

// Add keeps t.
func (l *BatchLog) Add(t BatchTimes) {
	l.mu.Lock()
	l.times = append(l.times, t)
	l.mu.Unlock()
}

// Batches returns the BatchTimes kept so far, in the order reported.
func (l *BatchLog) Batches() []BatchTimes {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.times)
}

// withRecords returns t with Records and Oldest those of msgs, its batch.
func (t BatchTimes) withRecords(msgs []kafka.Message) BatchTimes {
	t.Records = len(msgs)
	for i, m := range msgs {
		if i == 0 || m.Time.Before(t.Oldest) {
			t.Oldest = m.Time
		}
	}
	return t
}

// observeLatency records, for each of a batch's records, the time from its
// input timestamp to acked, when its output was acknowledged. A record with
// no timestamp is left out; one from a clock ahead of ours counts as 0.
func (m *metrics) observeLatency(msgs []kafka.Message, acked time.Time) {
	for i := range msgs {
		if t := msgs[i].Time; !t.IsZero() {
			m.latency.Observe(max(acked.Sub(t), 0).Seconds())
		}
	}
}
