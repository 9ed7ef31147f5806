package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/bench"
)

// Topics of the latency mode: each run reads its own input topic, which the
// rate-limited producer fills while the run is going.
const (
	latBroker                 = "bench.lat.b" // read back as written: the harness's own floor
	latPassIn, latPassOut     = "bench.lat.p", "bench.lat.pass"
	latFilterIn, latFilterOut = "bench.lat.f", "bench.lat.out"
)

// brokerLatency measures the harness alone: producer, broker and read-back,
// with no pipeline between them.
func brokerLatency(ctx context.Context, cl bench.Cluster, o benchOptions, docs *bench.Encoded) (*bench.LatencyRun, error) {
	return bench.RunLatency(ctx, cl, o.partitions, nil, latBroker, latBroker, docs, nil)
}

// passthroughLatency runs the passthrough in latency mode.
func passthroughLatency(ctx context.Context, cl bench.Cluster, o benchOptions, docs *bench.Encoded) (*bench.LatencyRun, error) {
	cfg := benchConfig(cl, o, latPassOut, "bench-passthrough-latency")
	cfg.Kafka.Input = latPassIn
	p := stream.NewPassthrough(cfg.Config, zap.NewNop())
	defer p.Close()
	return bench.RunLatency(ctx, cl, o.partitions, p, latPassIn, latPassOut, docs, nil)
}

// filterLatency runs the filter in latency mode on the state the throughput
// run left, so the latency is that of a filter with o.docs documents stored.
func filterLatency(ctx context.Context, cl bench.Cluster, o benchOptions, dir string, docs *bench.Encoded) (*bench.LatencyRun, error) {
	cfg := filterConfig(cl, o, latFilterOut, "bench-filter-latency", dir) // the throughput run's state settings, too
	cfg.Kafka.Input = latFilterIn
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	log, closeLog, err := benchLog(o.log)
	if err != nil {
		return nil, err
	}
	defer closeLog()
	var batches stream.BatchLog
	a, err := newApp(cfg, log, func(d *stream.Deps) { d.Timed = batches.Add })
	if err != nil {
		return nil, err
	}
	settled := settleCompactions(ctx, o, a)
	stopProfile := func() {}
	if o.cpuProfile != "" {
		if stopProfile, err = startCPUProfile(o.cpuProfile + ".latency"); err != nil {
			return nil, errors.Join(err, a.close())
		}
	}
	if o.memProfile != "" { // the run's allocations: go tool pprof -base FILE.latency.base FILE.latency
		if err := bench.WriteHeapProfile(o.memProfile + ".latency.base"); err != nil {
			return nil, errors.Join(err, a.close())
		}
	}
	var watch func() []stateSample
	if o.timeline && a.store != nil {
		watch = watchState(a.store.LevelShape)
	}
	run, err := bench.RunLatency(ctx, cl, o.partitions, a.pipe, latFilterIn, latFilterOut, docs, &o.trace)
	stopProfile() // the run, not the close below
	if watch != nil {
		states := watch()
		if run != nil {
			run.Timeline = annotate(run.Timeline, states)
		}
	}
	if o.memProfile != "" && err == nil {
		err = bench.WriteHeapProfile(o.memProfile + ".latency")
	}
	if run != nil {
		run.Settled = settled
		run.StageTail = bench.StageTail(a.reg)
		run.StageSeconds = bench.StageSeconds(a.reg)
		run.Spans, run.SlowSpans = bench.MeanSpans(bench.Measured(batches.Batches(), run.Start), bench.SlowShare)
		if q, ok := bench.HistogramQuantiles(a.reg, "dedupstream_record_latency_seconds", 0.5, 0.99); ok {
			run.MetricP50, run.MetricP99 = time.Duration(q[0]*float64(time.Second)), time.Duration(q[1]*float64(time.Second))
		}
	}
	if cerr := a.close(); err == nil {
		err = cerr
	}
	return run, err
}

// stateSample is what watchState saw at a moment: this process's CPU time
// and the tables of each level of the state.
type stateSample struct {
	at     time.Time
	cpu    time.Duration
	tables []int64
}

// watchState samples this process's CPU time and the state's tables per
// level (LevelShape) at once and then as bench.SampleEvery does, for bench
// --timeline; stop ends it and returns the samples.
func watchState(shape func() []int64) (stop func() []stateSample) {
	var out []stateSample
	sample := func() {
		var tables []int64
		for i, v := range shape() {
			if i%2 == 0 { // LevelShape alternates tables and bytes
				tables = append(tables, v)
			}
		}
		out = append(out, stateSample{at: time.Now(), cpu: bench.CPUTime(), tables: tables})
	}
	sample()
	end := bench.SampleEvery(sample)
	return func() []stateSample {
		end()
		return out
	}
}

// annotate adds to each window of tl the process's CPU over it (cores) and
// the state's tables per level at its end, from the first samples at or
// after its bounds.
func annotate(tl []bench.Window, ss []stateSample) []bench.Window {
	at := func(t time.Time) (stateSample, bool) {
		i, _ := slices.BinarySearchFunc(ss, t, func(s stateSample, t time.Time) int { return s.at.Compare(t) })
		if i >= len(ss) {
			return stateSample{}, false
		}
		return ss[i], true
	}
	for i := range tl {
		a, ok1 := at(tl[i].Start)
		b, ok2 := at(tl[i].Start.Add(bench.TimelineStep))
		if !ok1 || !ok2 || !b.at.After(a.at) {
			continue
		}
		tl[i].Cores = (b.cpu - a.cpu).Seconds() / b.at.Sub(a.at).Seconds()
		tl[i].Tables = b.tables
	}
	return tl
}

// settleMax bounds the wait of settleCompactions.
const settleMax = 5 * time.Minute

// settleCompactions waits, with --settle, until no level of the filter's state
// is due for compaction and the levels' tables have not changed for
// settleQuiet (the compactions already running have finished), or settleMax
// has passed, and returns how long it waited. A throughput run writes faster
// than two cores compact, and the debt it leaves is paid by the compactors
// right after the state is opened again, taking the CPU from the pipeline
// for seconds; without the wait the latency mode measures that, not a filter
// at o.docs documents in its steady state.
func settleCompactions(ctx context.Context, o benchOptions, a *app) time.Duration {
	start := time.Now()
	if !o.settle || a.store == nil {
		return 0
	}
	shape, still := a.store.LevelShape(), time.Now()
	for time.Since(start) < settleMax {
		if next := a.store.LevelShape(); !slices.Equal(next, shape) || a.store.CompactionScore() >= 1 {
			shape, still = next, time.Now()
		} else if time.Since(still) >= settleQuiet {
			break
		}
		select {
		case <-ctx.Done():
			return time.Since(start)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return time.Since(start)
}

// settleQuiet is how long the levels' tables must stay as they are for
// settleCompactions: longer than a compaction of this workload runs without
// finishing a table set (the 1M runs' logs show iterations of 20–572 ms).
const settleQuiet = 2 * time.Second

// benchLog is the filter's logger in the latency mode: with --log, every
// message down to debug (Badger's memtable flushes and compactions among
// them) as JSON lines with timestamps, to line stalls up with; else none.
func benchLog(path string) (*zap.Logger, func(), error) {
	if path == "" {
		return zap.NewNop(), func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	log, err := newLogger(LogConfig{Level: "debug", Format: "json"}, f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return log, func() { _ = log.Sync(); f.Close() }, nil
}

func printLatency(w io.Writer, ld bench.LatencyDocs, stored uint64, floor, pass, run *bench.LatencyRun, timeline bool) {
	fmt.Fprintf(w, "\nlatency mode: %d documents (after %d warm-up) produced at %.0f docs/s while the pipeline runs;\n"+
		"per record from the input record's timestamp (set just before the write; Kafka timestamps are whole ms) to the\n"+
		"output record's read-back; the filter starts with the %d documents of the throughput run stored\n\n",
		ld.N, ld.Warm, ld.Rate, stored)
	printLatencyTable(w, floor, pass, "dedupstream", run)
	fmt.Fprintf(w, "\nstop-the-world pauses in this process during the filter's latency run: %d, the longest ≤ %.1f ms\n",
		run.GCPauses, run.LongestGC.Seconds()*1e3)
	if run.Batches > 0 {
		fmt.Fprintf(w, "the filter's batches in its latency run: %d, %.1f records each on average; this process's CPU while it produced and read back (filter, producer, read-back): %.1f s, %.0f µs a record\n",
			run.Batches, float64(run.Records)/float64(run.Batches), run.CPU.Seconds(), perRecord(run.CPU, run.Docs))
	}
	if run.BrokerKnown {
		fmt.Fprintf(w, "the broker process's CPU meanwhile: %s", brokerUsage(run.Usage, int64(run.Docs)))
		if floor != nil && floor.BrokerKnown {
			fmt.Fprintf(w, " (with no pipeline: this process %.0f µs, the broker %.0f µs a record, %.2f cores)",
				perRecord(floor.CPU, floor.Docs), perRecord(floor.BrokerCPU, floor.Docs), floor.Cores())
		}
		fmt.Fprintln(w)
	}
	if run.StageTail != "" {
		ms := make([]string, len(bench.StageTailBounds))
		for i, b := range bench.StageTailBounds {
			ms[i] = strconv.FormatFloat(b*1e3, 'f', -1, 64)
		}
		fmt.Fprintf(w, "the filter's latency run, seconds per stage (sum over batches): %s; batches over %s ms: %s\n", run.StageSeconds, strings.Join(ms, "/"), run.StageTail)
	}
	if run.MetricP99 > 0 {
		fmt.Fprintf(w, "the filter's own dedupstream_record_latency_seconds (to the output's acknowledgement, not read back; interpolated in its buckets, as histogram_quantile does): p50 ≈ %.1f ms, p99 ≈ %.1f ms\n",
			run.MetricP50.Seconds()*1e3, run.MetricP99.Seconds()*1e3)
	}
	if run.Spans.Batches > 0 {
		fmt.Fprintf(w, "where the filter's batches spent their time, on average from the oldest record's input timestamp (whole ms) to the output's acknowledgement: all %d batches: %s; the slowest %.0f%% (%d): %s\n",
			run.Spans.Batches, run.Spans, bench.SlowShare*100, run.SlowSpans.Batches, run.SlowSpans)
	}
	if run.Settled > 0 {
		fmt.Fprintf(w, "before producing, the filter waited %.1f s after opening for its state's compactions to settle (--settle)\n", run.Settled.Seconds())
	}
	for _, t := range run.Traces {
		fmt.Fprintf(w, "execution trace of the seconds before a record read back at %s, %.1f ms late: %s (go tool trace)\n",
			t.At.UTC().Format("15:04:05.000"), t.Latency.Seconds()*1e3, t.Path)
	}
	if timeline && len(run.Timeline) > 0 {
		fmt.Fprintf(w, "timeline of the filter's latency run, by when records were produced (the process's CPU: filter, producer, read-back; the state's tables per level at the window's end):\n")
		fmt.Fprintln(w, "| from s | records | p99 ms | max ms | CPU cores | tables per level |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---|")
		for _, win := range run.Timeline {
			cores, tables := "", "" // the last window may end after the last sample
			if win.Tables != nil {
				cores, tables = fmt.Sprintf("%.2f", win.Cores), fmt.Sprint(win.Tables)
			}
			fmt.Fprintf(w, "| %.1f | %d | %.1f | %.1f | %s | %s |\n", win.Start.Sub(run.Timeline[0].Start).Seconds(), win.Records,
				win.P99.Seconds()*1e3, win.Max.Seconds()*1e3, cores, tables)
		}
	}
	if len(run.Slowest) > 0 {
		fmt.Fprintf(w, "slowest records of the filter's latency run (produced at, latency; --log FILE has the filter's debug log to line them up with):\n")
		for _, sm := range run.Slowest {
			fmt.Fprintf(w, "  %s  %7.1f ms\n", sm.At.UTC().Format("15:04:05.000"), sm.Latency.Seconds()*1e3)
		}
	}
}

// printLatencyTable prints the latency table: the harness's floor, the
// passthrough (if not nil) and the filter's run, named name.
func printLatencyTable(w io.Writer, floor, pass *bench.LatencyRun, name string, run *bench.LatencyRun) {
	fmt.Fprintln(w, "| run | docs | produced docs/s | p50 ms | p99 ms | max ms |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	row := func(name string, r *bench.LatencyRun) {
		fmt.Fprintf(w, "| %s | %d | %.0f | %s | %s | %s |\n", name, r.Docs, r.Produced, latencyMS(r, 0.5), latencyMS(r, 0.99), latencyMS(r, 1))
	}
	row("no pipeline (produce → read back)", floor)
	if pass != nil {
		row("passthrough", pass)
	}
	row(name, run)
}

// perRecord is d a record, in µs, over n records.
func perRecord(d time.Duration, n int) float64 { return d.Seconds() * 1e6 / float64(max(n, 1)) }

// brokerUsage says what the embedded broker spent on a run of n records, and
// how busy it and this process kept the machine.
func brokerUsage(u bench.Usage, n int64) string {
	return fmt.Sprintf("%.1f s, %.0f µs a record; the two processes kept %.2f of the machine's %d cores busy",
		u.BrokerCPU.Seconds(), perRecord(u.BrokerCPU, int(n)), u.Cores(), runtime.NumCPU())
}

// latencyMS is r's q-quantile in milliseconds, "-" for a run not made.
func latencyMS(r *bench.LatencyRun, q float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", bench.Percentile(r.Lat, q).Seconds()*1e3)
}
