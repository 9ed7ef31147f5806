package bench

import (
	"fmt"
	"io"
)

// FilterRun is one measured run of a pipeline in process, with what its state
// and metrics said at the end.
type FilterRun struct {
	Run
	StateBytes int64  // bytes on disk after close
	StateDocs  uint64 // documents stored
	Stages     string // seconds per pipeline stage, from the metrics
	Sketch     string // the filter's sketch version
}

// StateBytesPerDoc is the state's bytes on disk per stored document, "-"
// with none stored.
func (r *FilterRun) StateBytesPerDoc() string {
	if r.StateDocs == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(r.StateBytes)/float64(r.StateDocs))
}

// WriteThroughput writes the throughput mode's table: the passthrough (if
// not nil) and the filter's run over input of bytes, then what the filter
// run used and decided.
func WriteThroughput(w io.Writer, bytes int64, pass, run *FilterRun) {
	mb := float64(bytes) / 1e6
	fmt.Fprintln(w, "\nthroughput mode: all documents produced first, then each pipeline drains the backlog (maximum docs/s)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| run | docs | seconds | docs/s | MB/s | CPU s | peak RSS MB | state bytes/doc |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	row := func(name string, r *FilterRun, state string) {
		s := r.Elapsed.Seconds()
		fmt.Fprintf(w, "| %s | %d | %.2f | %.0f | %.1f | %.1f | %.0f | %s |\n", name, r.Counts.Records, s,
			float64(r.Counts.Records)/s, mb/s, r.CPU.Seconds(), float64(r.PeakRSS)/1e6, state)
	}
	if pass != nil {
		row("passthrough", pass, "-")
	}
	row("dedupstream", run, run.StateBytesPerDoc())
	if pass != nil {
		fmt.Fprintf(w, "\nthroughput ratio dedupstream/passthrough: %.2f\n", pass.Elapsed.Seconds()/run.Elapsed.Seconds())
	}
	fmt.Fprintf(w, "resident at the end of the filter run: %.0f MB anonymous (heap, stacks), %.0f MB file-backed (mapped Badger tables)\n",
		float64(run.Anon)/1e6, float64(run.File)/1e6)
	fmt.Fprintf(w, "peaks during the filter run (sampled every 0.1 s): %.0f MB anonymous, %.0f MB live Go heap\n",
		float64(run.PeakAnon)/1e6, float64(run.PeakLive)/1e6)
	if run.BrokerKnown {
		fmt.Fprintf(w, "the broker process's CPU meanwhile: %s\n", brokerUsage(run.Usage, run.Counts.Records))
	}
	if run.Stages != "" {
		fmt.Fprintf(w, "seconds per stage (sum over batches): %s\n", run.Stages)
	}
	c := run.Counts
	if c.Batches > 0 {
		fmt.Fprintf(w, "batches: %d, %.1f records each on average\n", c.Batches, float64(c.Records)/float64(c.Batches))
	}
	fmt.Fprintf(w, "verdicts: unique %d, near_duplicate %d, exact_duplicate %d, contained %d, invalid %d; state %d docs, %.1f MB on disk\n",
		c.Unique, c.NearDuplicate, c.ExactDuplicate, c.Contained, c.Invalid, run.StateDocs, float64(run.StateBytes)/1e6)
}

// WriteSummary writes one line of key=value pairs for scripts
// (docs/bench/scaling.sh) of a bench of docs documents on a machine with pr;
// "-" stands for a run that was not made.
func WriteSummary(w io.Writer, docs int, pr PageReporting, pass, run *FilterRun, floor, lpass, lrun *LatencyRun) {
	rate := func(r *FilterRun) string {
		if r == nil {
			return "-"
		}
		return fmt.Sprintf("%.0f", float64(r.Counts.Records)/r.Elapsed.Seconds())
	}
	fmt.Fprintf(w, "\nsummary: docs=%d stored=%d pass_docs_s=%s docs_s=%s cpu_s=%.1f peak_rss_mb=%.0f anon_mb=%.0f file_mb=%.0f peak_anon_mb=%.0f peak_live_mb=%.0f state_bytes_doc=%s",
		docs, run.StateDocs, rate(pass), rate(run), run.CPU.Seconds(), float64(run.PeakRSS)/1e6,
		float64(run.Anon)/1e6, float64(run.File)/1e6, float64(run.PeakAnon)/1e6, float64(run.PeakLive)/1e6, run.StateBytesPerDoc())
	latRate := "-"
	if lrun != nil {
		latRate = fmt.Sprintf("%.0f", lrun.Produced)
	}
	fmt.Fprintf(w, " latency_rate=%s floor_p50_ms=%s floor_p99_ms=%s floor_max_ms=%s", latRate, latencyMS(floor, 0.5), latencyMS(floor, 0.99), latencyMS(floor, 1))
	fmt.Fprintf(w, " pass_p50_ms=%s pass_p99_ms=%s pass_max_ms=%s p50_ms=%s p99_ms=%s max_ms=%s sketch=%s",
		latencyMS(lpass, 0.5), latencyMS(lpass, 0.99), latencyMS(lpass, 1), latencyMS(lrun, 0.5), latencyMS(lrun, 0.99), latencyMS(lrun, 1), run.Sketch)
	busy := "-"
	if lrun != nil && lrun.BrokerKnown {
		busy = fmt.Sprintf("%.2f", lrun.Cores())
	}
	brokerCPU := "-"
	if run.BrokerKnown {
		brokerCPU = fmt.Sprintf("%.1f", run.BrokerCPU.Seconds())
	}
	metricP99 := "-"
	if lrun != nil && lrun.MetricP99 > 0 {
		metricP99 = fmt.Sprintf("%.1f", lrun.MetricP99.Seconds()*1e3)
	}
	fmt.Fprintf(w, " broker_cpu_s=%s latency_cores=%s metric_p99_ms=%s page_reporting=%s\n", brokerCPU, busy, metricP99, pr)
}

// WritePageReporting says, on a virtual machine whose balloon offers free
// page reporting, whether the kernel hands free memory back to the host: on
// the machine of BENCHMARKS.md the latency mode's p99 and the broker's CPU a
// record were 1.1–2.1 times as high when the run's memory had been.
func WritePageReporting(w io.Writer, r PageReporting) {
	switch {
	case r.On:
		fmt.Fprintf(w, "this virtual machine reports free memory to its host (virtio-balloon free page reporting, blocks of order %d and up): the latency mode's tail depends on it (BENCHMARKS.md, \"Free page reporting\")\n", r.Order)
	case r.Offered && r.Order < 0:
		fmt.Fprintln(w, "this virtual machine's balloon offers free page reporting; whether the kernel reports could not be read")
	case r.Offered:
		fmt.Fprintf(w, "this virtual machine's balloon offers free page reporting, and the kernel does not report (page_reporting_order %d)\n", r.Order)
	}
}
