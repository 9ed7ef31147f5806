package bench

import (
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// WriteLatency writes the latency mode's table — the harness's floor, the
// passthrough (if not nil), the filter's run with stored documents stored
// at its start — and what the filter's run used and where its time went;
// with timeline, its run in windows of TimelineStep.
func WriteLatency(w io.Writer, ld LatencyDocs, stored uint64, floor, pass, run *LatencyRun, timeline bool) {
	fmt.Fprintf(w, "\nlatency mode: %d documents (after %d warm-up) produced at %.0f docs/s while the pipeline runs;\n"+
		"per record from the input record's timestamp (set just before the write; Kafka timestamps are whole ms) to the\n"+
		"output record's read-back; the filter starts with the %d documents of the throughput run stored\n\n",
		ld.N, ld.Warm, ld.Rate, stored)
	writeLatencyTable(w, floor, pass, "dedupstream", run)
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
		ms := make([]string, len(StageTailBounds))
		for i, b := range StageTailBounds {
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
			run.Spans.Batches, run.Spans, SlowShare*100, run.SlowSpans.Batches, run.SlowSpans)
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

// writeLatencyTable writes the latency table: the harness's floor, the
// passthrough (if not nil) and the filter's run, named name.
func writeLatencyTable(w io.Writer, floor, pass *LatencyRun, name string, run *LatencyRun) {
	fmt.Fprintln(w, "| run | docs | produced docs/s | p50 ms | p99 ms | max ms |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	row := func(name string, r *LatencyRun) {
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
func brokerUsage(u Usage, n int64) string {
	return fmt.Sprintf("%.1f s, %.0f µs a record; the two processes kept %.2f of the machine's %d cores busy",
		u.BrokerCPU.Seconds(), perRecord(u.BrokerCPU, int(n)), u.Cores(), runtime.NumCPU())
}

// latencyMS is r's q-quantile in milliseconds, "-" for a run not made.
func latencyMS(r *LatencyRun, q float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", Percentile(r.Lat, q).Seconds()*1e3)
}
