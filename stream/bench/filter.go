package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// Filter is a filter built in this process for a measurement: its pipeline,
// metrics and single-instance state, and what closes them all.
type Filter struct {
	Pipe    *stream.Pipeline
	Metrics prometheus.Gatherer
	Store   *state.Store
	Dir     string           // the state's directory
	Sketch  string           // the sketch version
	Batches *stream.BatchLog // the pipeline's batch times (stream.Deps.Timed), if kept
	Close   func() error
}

// Profiles name the profiles of a measurement; "" writes none.
type Profiles struct {
	CPU string // the CPU profile of the run
	// Mem is the heap profile at the end of the run, Mem+".peak" the one at
	// the live heap's peak during it (MeasureFilter); FilterLatency writes
	// Mem+".latency.base" and Mem+".latency" at its start and end.
	Mem string
}

// MeasureFilter runs f until it has processed n records (MeasureWith, with
// the broker of c), writes the profiles of p, then closes f and reads the
// state's size.
func MeasureFilter(ctx context.Context, c Cluster, f *Filter, n int, p Profiles) (*FilterRun, error) {
	stopProfile, err := startProfile(p.CPU)
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	mo := MeasureOptions{Cluster: c}
	if p.Mem != "" {
		mo.PeakHeapProfile = p.Mem + ".peak"
	}
	r, err := MeasureWith(ctx, f.Pipe, n, mo)
	stopProfile() // the run, not the close below
	run := &FilterRun{Run: *r}
	if p.Mem != "" {
		if perr := WriteHeapProfile(p.Mem); err == nil {
			err = perr
		}
	}
	run.StateDocs = f.Store.Stats().Docs
	run.Stages = StageSeconds(f.Metrics)
	run.Sketch = f.Sketch
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	run.StateBytes = DirSize(f.Dir)
	return run, err
}

// LatencyOptions are what FilterLatency does besides RunLatency.
type LatencyOptions struct {
	Partitions int  // of the latency topics
	Settle     bool // wait for the state's compactions first (SettleCompactions)
	Timeline   bool // annotate the run's windows with CPU and tables (WatchState)
	Trace      *SlowTrace
	Profiles   Profiles // CPU: written to CPU+".latency"
}

// FilterLatency runs f in latency mode (RunLatency from LatencyFilterIn to
// LatencyFilterOut), with what o asks besides, reads the stages, spans and
// record latency of its metrics, and closes f.
func FilterLatency(ctx context.Context, c Cluster, f *Filter, docs *Encoded, o LatencyOptions) (*LatencyRun, error) {
	var settled time.Duration
	if o.Settle && f.Store != nil {
		settled = SettleCompactions(ctx, f.Store)
	}
	cpu := o.Profiles.CPU
	if cpu != "" {
		cpu += ".latency"
	}
	stopProfile, err := startProfile(cpu)
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	if mem := o.Profiles.Mem; mem != "" { // the run's allocations: go tool pprof -base FILE.latency.base FILE.latency
		if err := WriteHeapProfile(mem + ".latency.base"); err != nil {
			return nil, errors.Join(err, f.Close())
		}
	}
	var watch func() []StateSample
	if o.Timeline && f.Store != nil {
		watch = WatchState(f.Store.LevelShape)
	}
	run, err := RunLatency(ctx, c, o.Partitions, f.Pipe, LatencyFilterIn, LatencyFilterOut, docs, o.Trace)
	stopProfile() // the run, not the close below
	if watch != nil {
		states := watch()
		if run != nil {
			run.Timeline = Annotate(run.Timeline, states)
		}
	}
	if o.Profiles.Mem != "" && err == nil {
		err = WriteHeapProfile(o.Profiles.Mem + ".latency")
	}
	if run != nil {
		run.Settled = settled
		readMetrics(run, f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return run, err
}

// readMetrics sets run's figures from f's metrics and batch times.
func readMetrics(run *LatencyRun, f *Filter) {
	run.StageTail = StageTail(f.Metrics)
	run.StageSeconds = StageSeconds(f.Metrics)
	if f.Batches != nil {
		run.Spans, run.SlowSpans = MeanSpans(Measured(f.Batches.Batches(), run.Start), SlowShare)
	}
	if q, ok := HistogramQuantiles(f.Metrics, "dedupstream_record_latency_seconds", 0.5, 0.99); ok {
		run.MetricP50, run.MetricP99 = time.Duration(q[0]*float64(time.Second)), time.Duration(q[1]*float64(time.Second))
	}
}

// startProfile starts a CPU profile into path, none when path is empty.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	return StartCPUProfile(path)
}

// StartCPUProfile profiles the process into path until the returned stop
// is called.
func StartCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// LatencyRunner runs one pipeline in latency mode over docs.
type LatencyRunner func(ctx context.Context, docs *Encoded) (*LatencyRun, error)

// LatencyMode runs the latency mode: producer and read-back alone (the
// harness's floor, FloorLatency), pass (the passthrough; nil: none), then
// filter, each while a producer writes the documents of ld at ld.Rate. The
// documents are encoded once, first, before any pipeline runs (Encoded).
func LatencyMode(ctx context.Context, c Cluster, partitions int, ld LatencyDocs, pass, filter LatencyRunner) (floorRun, passRun, filterRun *LatencyRun, err error) {
	docs, err := ld.Encode()
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() { _ = docs.Free() }()
	ReleaseMemory() // the encoding's garbage, before the filter sets its memory limit
	if floorRun, err = FloorLatency(ctx, c, partitions, docs); err != nil {
		return nil, nil, nil, fmt.Errorf("latency without a pipeline: %w", err)
	}
	if pass != nil {
		if passRun, err = pass(ctx, docs); err != nil {
			return nil, nil, nil, fmt.Errorf("passthrough latency: %w", err)
		}
		ReleaseMemory()
	}
	if filterRun, err = filter(ctx, docs); err != nil {
		return nil, nil, nil, fmt.Errorf("filter latency: %w", err)
	}
	return floorRun, passRun, filterRun, nil
}
