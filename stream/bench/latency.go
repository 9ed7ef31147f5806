package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// LatencyWarmup documents go first and are waited for, so that the group join
// and the readers' first fetch are not counted.
const LatencyWarmup = 20

// LatencyRun is one run of the latency mode.
type LatencyRun struct {
	Start    time.Time       // when the measured production began, after the warm-up
	Docs     int             // measured documents (warm-up excluded)
	Produced float64         // docs/s the producer achieved
	Lat      []time.Duration // per measured record, ascending
	Slowest  []Sample        // the slowest record of each 10 ms of production, slowest first (at most SlowestKept)
	// GCPauses and LongestGC are the process's stop-the-world pauses during
	// the run (the filter's, when it runs in process) and the upper bound of
	// the longest one's histogram bucket.
	GCPauses  uint64
	LongestGC time.Duration
	// Settled is how long the filter waited, once opened and before the
	// producer started, for its state's compactions (bench --settle).
	Settled time.Duration
	// Records and Batches are the pipeline's, warm-up included (zero with
	// no pipeline): its average batch at this rate.
	Records, Batches int64
	// Usage is the CPU of the run's production and read-back (the warm-up
	// left out): this process's — the filter's when it runs in process,
	// the producer's and the read-back's — and the embedded broker's.
	Usage
	// Traces are the execution traces written of late records (SlowTrace).
	Traces []TraceFile
	// Timeline is the run's production in windows of TimelineStep.
	Timeline []Window
	// StageSeconds and StageTail are StageSeconds and StageTail of the
	// filter's metrics (in process): its seconds and its batches over 16,
	// 32 and 64 ms, stage by stage.
	StageSeconds, StageTail string
	// Spans and SlowSpans are the mean spans of the filter's batches (in
	// process), all of them and the slowest SlowShare (MeanSpans).
	Spans, SlowSpans SpanMeans
	// MetricP50 and MetricP99 are the in-process filter's own estimate of
	// its latency, from its dedupstream_record_latency_seconds
	// (HistogramQuantiles; the warm-up included, the read-back not); zero
	// when unknown.
	MetricP50, MetricP99 time.Duration
}

// SlowShare is the share of a latency run's batches whose spans LatencyRun's
// SlowSpans averages.
const SlowShare = 0.02

// Sample is one measured record: when it was produced and how long it took
// to come back.
type Sample struct {
	At      time.Time
	Latency time.Duration
}

// SlowestKept is how many of the slowest records a run keeps, to line them
// up with what the filter was doing then (bench --log).
const SlowestKept = 20

// percentile returns the nearest-rank q-quantile (0 < q ≤ 1) of ascending d.
func Percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	k := int(q*float64(len(d))+0.999999) - 1
	return d[min(max(k, 0), len(d)-1)]
}

// LatencyDocs is the range of Source documents a latency run produces:
// first..first+warm+n-1, after the ones the throughput mode used.
type LatencyDocs struct {
	Src         *Source
	First, Warm int
	N           int
	Rate        float64 // docs/s
}

// RunLatency runs p while producing docs to topic in at docs.Rate, reads
// topic out back (from its end when the run starts) and measures each record
// from its input timestamp (set by the producer just before the write) to the
// moment it is read back. With p nil, something else turns in into out: the
// broker itself (out is in: the records are read back as written), or a
// fleet of filter processes. With st not nil, late records are traced. docs
// are the caller's to free once it returns (it has closed its writer).
func RunLatency(ctx context.Context, c Cluster, partitions int, p *stream.Pipeline, in, out string, docs *Encoded, st *SlowTrace) (*LatencyRun, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var r stream.Runner = stream.RunnerFunc(func(ctx context.Context) error { <-ctx.Done(); return nil })
	if p != nil {
		r = p
	}
	tr, err := st.start()
	if err != nil {
		return nil, err
	}
	rb, err := startReadback(runCtx, c, out, partitions, tr)
	if err != nil {
		_, _ = tr.stop()
		return nil, err
	}
	gcBefore := ReadGCPauses()
	running := stream.Start(runCtx, r)
	w := c.writer(in)
	w.BatchSize = tickBatch(docs.LatencyDocs.Rate, partitions)
	defer w.Close()
	res, err := driveLatency(runCtx, c, w, rb, docs, running.Done())
	if res != nil {
		res.GCPauses, res.LongestGC = ReadGCPauses().Since(gcBefore)
		if p != nil {
			n := p.Counts()
			res.Records, res.Batches = n.Records, n.Batches
		}
	}
	cancel()
	_ = rb.wait() // the records are in; a failed close loses nothing measured
	traces, trErr := tr.stop()
	if res != nil {
		res.Traces = traces
	}
	if trErr != nil {
		err = errors.Join(err, fmt.Errorf("slow-record traces: %w", trErr))
	}
	if runErr := running.Stop(); err == nil && runErr != nil && !errors.Is(runErr, context.Canceled) {
		err = runErr
	}
	return res, err
}

// produceTick is how often driveLatency produces the records due.
const produceTick = 5 * time.Millisecond

// tickBatch is the BatchSize of driveLatency's writer: twice a partition's
// share of a tick's records, at least 16. kafka-go gives every batch it
// starts room for BatchSize records, and with the 1,000 of the bench's
// other writers that was 152 KB a partition every tick, 4.3 KB a record at
// 13.6k docs/s: a third of what the process allocated in the latency run
// (filter, producer and read-back share it), making the filter's collector
// run more often than it would beside another process's producer. A tick
// with more records for a partition is sent as more than one batch.
func tickBatch(rate float64, partitions int) int {
	perTick := rate * produceTick.Seconds() / float64(max(partitions, 1))
	return max(16, 2*int(math.Ceil(perTick)))
}

// driveLatency produces the warm-up, waits for it to come back, then produces
// the measured documents at ld.Rate and waits for all of them.
func driveLatency(ctx context.Context, c Cluster, w *kafka.Writer, rb *readback, docs *Encoded, stopped <-chan struct{}) (*LatencyRun, error) {
	ld := docs.LatencyDocs
	if err := w.WriteMessages(ctx, docs.messages(0, ld.Warm, time.Now())...); err != nil {
		return nil, fmt.Errorf("latency warm-up: %w", err)
	}
	if err := rb.waitFor(ctx, ld.Warm, time.Minute, stopped); err != nil {
		return nil, fmt.Errorf("latency warm-up: %w", err)
	}
	start, usage := time.Now(), c.StartUsage()
	tick := time.NewTicker(produceTick)
	defer tick.Stop()
	for sent := 0; sent < ld.N; {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-stopped:
			return nil, errors.New("pipeline stopped during the latency run")
		case <-tick.C:
		}
		due := min(ld.N, int(ld.Rate*time.Since(start).Seconds()))
		if due <= sent {
			continue
		}
		if err := w.WriteMessages(ctx, docs.messages(ld.Warm+sent, due-sent, time.Now())...); err != nil {
			return nil, fmt.Errorf("latency produce: %w", err)
		}
		sent = due
	}
	produced := float64(ld.N) / time.Since(start).Seconds()
	expect := time.Duration(float64(ld.N)/ld.Rate*float64(time.Second)) + time.Minute
	if err := rb.waitFor(ctx, ld.Warm+ld.N, expect, stopped); err != nil {
		return nil, err
	}
	used := usage()
	samples := rb.measured()
	lat := make([]time.Duration, len(samples))
	for i, sm := range samples {
		lat[i] = sm.Latency
	}
	slices.Sort(lat)
	tl := timeline(samples, TimelineStep)
	return &LatencyRun{Start: start, Docs: len(lat), Produced: produced, Lat: lat, Slowest: slowest(samples), Timeline: tl, Usage: used}, nil
}

// TimelineStep is the span of production a Window covers.
const TimelineStep = 500 * time.Millisecond

// Window is a span of a latency run's production: how many records were
// produced in it, and the 99th percentile and the largest of their
// latencies. A tail that builds over seconds (the filter short of CPU)
// shows as windows rising one after the other; a stall, as one.
type Window struct {
	Start    time.Time
	Records  int
	P99, Max time.Duration
	// Cores and Tables are the caller's to fill in (bench --timeline):
	// the process's CPU over the window and the state's tables per level
	// at its end.
	Cores  float64
	Tables []int64
}

// timeline sorts samples by production time and cuts them into windows of
// step.
func timeline(samples []Sample, step time.Duration) []Window {
	slices.SortFunc(samples, func(a, b Sample) int { return a.At.Compare(b.At) })
	var out []Window
	var lat []time.Duration
	flush := func() {
		if len(lat) == 0 {
			return
		}
		slices.Sort(lat)
		w := &out[len(out)-1]
		w.Records, w.P99, w.Max = len(lat), Percentile(lat, 0.99), lat[len(lat)-1]
		lat = lat[:0]
	}
	for _, sm := range samples {
		if len(out) == 0 || sm.At.Sub(out[len(out)-1].Start) >= step {
			flush()
			start := sm.At
			if len(out) > 0 {
				start = out[len(out)-1].Start.Add(step * (sm.At.Sub(out[len(out)-1].Start) / step))
			}
			out = append(out, Window{Start: start})
		}
		lat = append(lat, sm.Latency)
	}
	flush()
	return out
}

// slowest returns the slowest record of each 10 ms of production (records
// produced together come back together), the SlowestKept slowest of those.
func slowest(samples []Sample) []Sample {
	slices.SortFunc(samples, func(a, b Sample) int { return cmp.Compare(b.Latency, a.Latency) })
	seen := make(map[int64]bool)
	var out []Sample
	for _, sm := range samples {
		if w := sm.At.UnixMilli() / 10; !seen[w] && len(out) < SlowestKept {
			seen[w] = true
			out = append(out, sm)
		}
	}
	return out
}

// Encoded is a latency run's documents (warm-up and measured) encoded as
// JSON records ahead of the run, in memory off the Go heap (offHeap). Making
// a page (a shuffled copy of a corpus document) and encoding it costs about
// 18 µs, a third to half of what filtering it does, which during the run would
// be taken from the filter on the same cores; and encoded once, the same
// documents serve every run of a bench (the floor, the passthrough, the
// filter). Free releases them.
type Encoded struct {
	LatencyDocs
	keys, values [][]byte
	mem          offHeap
}

// Encode encodes the documents ld.First.. of the run: the warm-up with keys
// "warm<i>", the measured ones "d<i>".
func (ld LatencyDocs) Encode() (*Encoded, error) {
	n := ld.Warm + ld.N
	e := &Encoded{LatencyDocs: ld, keys: make([][]byte, n), values: make([][]byte, n)}
	for k := range n {
		i := ld.First + k
		id := "d" + strconv.Itoa(i)
		if k < ld.Warm {
			id = "warm" + strconv.Itoa(i)
		}
		m := Message(id, ld.Src.Doc(i))
		var err error
		if e.keys[k], err = e.mem.copy(m.Key); err == nil {
			e.values[k], err = e.mem.copy(m.Value)
		}
		if err != nil {
			return nil, errors.Join(err, e.Free())
		}
	}
	return e, nil
}

// messages returns the records of documents from..from+n-1 of the run
// (counting the warm-up's), stamped t.
func (e *Encoded) messages(from, n int, t time.Time) []kafka.Message {
	msgs := make([]kafka.Message, n)
	for k := range msgs {
		msgs[k] = kafka.Message{Key: e.keys[from+k], Value: e.values[from+k], Time: t}
	}
	return msgs
}

// Free releases the documents' memory. No run may be using them.
func (e *Encoded) Free() error { return e.mem.free() }

// readback reads an output topic, one reader per partition (no group, so no
// join delay), from the end each partition had when it started, and keeps
// each record's latency.
type readback struct {
	trace *slowTracer // nil: none
	mu    sync.Mutex
	n     int
	lat   []Sample // measured records only
	wg    sync.WaitGroup
	errs  []error
	close []io.Closer
}

// MaxWait is long on purpose: kafka-go uses it as the fetch's read deadline too,
// and at 10 ms fetches timed out now and then and the reader backed off for
// 100 ms, which put a 100 ms tail on the harness's own floor (p99 91–121 ms
// against 5–6 ms at 500 ms). With MinBytes 1 the broker answers as soon as a
// record arrives, so a long MaxWait does not delay anything.
func startReadback(ctx context.Context, c Cluster, topic string, partitions int, tr *slowTracer) (*readback, error) {
	ends, err := endOffsets(ctx, c, topic, partitions)
	if err != nil {
		return nil, err
	}
	rb := &readback{trace: tr}
	readers := make([]*kafka.Reader, partitions)
	for part := range readers {
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{c.Addr}, Dialer: c.Dialer(), Topic: topic, Partition: part,
			MinBytes: 1, MaxBytes: 16 << 20, MaxWait: 500 * time.Millisecond, StartOffset: kafka.FirstOffset})
		rb.close = append(rb.close, r)
		if ends[part] > 0 {
			if err := r.SetOffset(ends[part]); err != nil {
				return nil, errors.Join(err, rb.wait()) // none reading yet
			}
		}
		readers[part] = r
	}
	for _, r := range readers {
		rb.wg.Add(1)
		go rb.read(ctx, r)
	}
	return rb, nil
}

// endOffsets returns the end offset of each of topic's partitions: where the
// records written from now on begin. A topic that does not exist yet (the
// latency topics are created by their first write) has none.
func endOffsets(ctx context.Context, c Cluster, topic string, partitions int) (map[int]int64, error) {
	reqs := make([]kafka.OffsetRequest, partitions)
	for p := range reqs {
		reqs[p] = kafka.LastOffsetOf(p)
	}
	t := c.Transport()
	defer t.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(c.Addr), Transport: t}
	res, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: reqs}})
	if err != nil {
		return nil, fmt.Errorf("end offsets of %s: %w", topic, err)
	}
	ends := make(map[int]int64)
	for _, po := range res.Topics[topic] {
		switch {
		case errors.Is(po.Error, kafka.UnknownTopicOrPartition):
		case po.Error != nil:
			return nil, fmt.Errorf("end offset of %s/%d: %w", topic, po.Partition, po.Error)
		default:
			ends[po.Partition] = po.LastOffset
		}
	}
	return ends, nil
}

func (rb *readback) read(ctx context.Context, r *kafka.Reader) {
	defer rb.wg.Done()
	for {
		m, err := r.ReadMessage(ctx)
		now := time.Now()
		if err != nil {
			if ctx.Err() == nil {
				rb.mu.Lock()
				rb.errs = append(rb.errs, err)
				rb.mu.Unlock()
			}
			return
		}
		measured, latency := len(m.Key) > 0 && m.Key[0] == 'd', now.Sub(m.Time)
		rb.mu.Lock()
		rb.n++
		if measured {
			rb.lat = append(rb.lat, Sample{At: m.Time, Latency: latency})
		}
		rb.mu.Unlock()
		if measured {
			rb.trace.saw(now, latency)
		}
	}
}

// waitFor waits until n records have been read back, for at most limit.
func (rb *readback) waitFor(ctx context.Context, n int, limit time.Duration, stopped <-chan struct{}) error {
	deadline := time.Now().Add(limit)
	for {
		rb.mu.Lock()
		got, errs := rb.n, errors.Join(rb.errs...)
		rb.mu.Unlock()
		switch {
		case got >= n:
			return nil
		case errs != nil:
			return fmt.Errorf("read back: %w", errs)
		case time.Now().After(deadline):
			return fmt.Errorf("read back %d of %d records in %s", got, n, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-stopped:
			return errors.New("pipeline stopped")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (rb *readback) measured() []Sample {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return slices.Clone(rb.lat)
}

// wait stops the readers (their context must be cancelled first, if any
// has started reading).
func (rb *readback) wait() error {
	rb.wg.Wait()
	var errs []error
	for _, c := range rb.close {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
