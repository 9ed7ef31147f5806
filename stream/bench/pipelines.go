package bench

import (
	"context"
	"os"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/filter"
	"github.com/dedupstream/dedupstream/stream/logging"
)

// FilterSettings are the configuration keys the bench sets in its
// pipelines: the passthrough's and the in-process filter's.
type FilterSettings struct {
	Kafka        stream.KafkaConfig // kafka.tls and kafka.sasl of the cluster
	Batch        int                // batch.size
	HoldWhenIdle bool               // batch.hold_when_idle
	Method       string             // sketch.method
	Verify       string             // sketch.verify.method
	VerifyPerm   int                // sketch.verify.num_perm
	Bands, Rows  int                // sketch.bands and sketch.rows (0, 0: chosen from the threshold)
	Contain      bool               // sketch.contain
	// The filter's memory caps: state.memtable_bytes, state.num_memtables,
	// memory_limit.
	MemtableBytes int64
	NumMemtables  int
	MemoryLimit   int64
}

// Pipelines say how the pipelines Execute measures in process are built
// (Runs).
type Pipelines struct {
	Filter      FilterSettings
	Passthrough bool // also measure a plain consume→produce passthrough
	// Settle, in the latency mode, waits for the state's compactions before
	// producing (LatencyOptions).
	Settle   bool
	Trace    *SlowTrace // the latency run's execution traces (Path "": none)
	Profiles Profiles
	// Log, if not empty, is the file the latency run's filter logs to: every
	// message down to debug (Badger's memtable flushes and compactions among
	// them) as JSON lines with timestamps, to line stalls up with.
	Log string
	// Process is what the filter takes from the process it runs in.
	Process filter.Process
}

// Runs are the pipelines p builds over cl for Execute with o.
func (p Pipelines) Runs(cl Cluster, o Options) Runs {
	r := Runs{
		Filter: func(ctx context.Context, dir string) (*FilterRun, error) {
			return p.runFilter(ctx, cl, o, dir)
		},
		FilterLatency: func(ctx context.Context, dir string, docs *Encoded) (*LatencyRun, error) {
			return p.filterLatency(ctx, cl, o, dir, docs)
		},
	}
	if p.Passthrough {
		r.Passthrough = func(ctx context.Context) (*FilterRun, error) { return p.runPassthrough(ctx, cl, o) }
		r.PassLatency = func(ctx context.Context, docs *Encoded) (*LatencyRun, error) {
			return p.passthroughLatency(ctx, cl, o, docs)
		}
	}
	return r
}

// config is the configuration of a pipeline of the bench reading Input
// and writing output as group.
func (s FilterSettings) config(cl Cluster, output, group string) filter.Config {
	var cfg filter.Config
	cfg.Kafka.Brokers = []string{cl.Addr}
	cfg.Kafka.TLS, cfg.Kafka.SASL = s.Kafka.TLS, s.Kafka.SASL
	cfg.Kafka.Input, cfg.Kafka.Output, cfg.Kafka.DeadLetter = Input, output, DeadLetter
	cfg.Kafka.Group = group
	cfg.Batch.Size = s.Batch
	cfg.Batch.HoldWhenIdle = s.HoldWhenIdle
	cfg.Sketch.Method = s.Method
	cfg.Sketch.Verify.Method, cfg.Sketch.Verify.NumPerm = s.Verify, s.VerifyPerm
	cfg.Sketch.Contain = s.Contain
	cfg.Sketch.Params.Bands, cfg.Sketch.Params.Rows = s.Bands, s.Rows
	cfg.EnsureDefaults()
	cfg.Admin.Listen = ""
	return cfg
}

// filterConfig is the filter's configuration in both modes: its state in dir
// with the memtable and memory-limit settings.
func (s FilterSettings) filterConfig(cl Cluster, output, group, dir string) filter.Config {
	cfg := s.config(cl, output, group)
	cfg.State.Dir = dir
	cfg.State.MemtableBytes, cfg.State.NumMemtables, cfg.MemoryLimit = s.MemtableBytes, s.NumMemtables, s.MemoryLimit
	cfg.State.EnsureDefaults()
	return cfg
}

func (p Pipelines) runPassthrough(ctx context.Context, cl Cluster, o Options) (*FilterRun, error) {
	cfg := p.Filter.config(cl, PassOutput, "bench-passthrough")
	pass := stream.NewPassthrough(cfg.Config, zap.NewNop())
	defer pass.Close()
	r, err := Measure(ctx, pass, o.Docs)
	return &FilterRun{Run: *r}, err
}

func (p Pipelines) runFilter(ctx context.Context, cl Cluster, o Options, dir string) (*FilterRun, error) {
	cfg := p.Filter.filterConfig(cl, Output, "bench-filter", dir)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f, err := filter.New(cfg, p.Process, zap.NewNop())
	if err != nil {
		return nil, err
	}
	return MeasureFilter(ctx, cl, measured(f, cfg, nil), o.Docs, p.Profiles)
}

// passthroughLatency runs the passthrough in latency mode.
func (p Pipelines) passthroughLatency(ctx context.Context, cl Cluster, o Options, docs *Encoded) (*LatencyRun, error) {
	cfg := p.Filter.config(cl, LatencyPassOut, "bench-passthrough-latency")
	cfg.Kafka.Input = LatencyPassIn
	pass := stream.NewPassthrough(cfg.Config, zap.NewNop())
	defer pass.Close()
	return RunLatency(ctx, cl, o.Partitions, pass, LatencyPassIn, LatencyPassOut, docs, nil)
}

// filterLatency runs the filter in latency mode on the state the throughput
// run left, so the latency is that of a filter with o.Docs documents stored.
func (p Pipelines) filterLatency(ctx context.Context, cl Cluster, o Options, dir string, docs *Encoded) (*LatencyRun, error) {
	cfg := p.Filter.filterConfig(cl, LatencyFilterOut, "bench-filter-latency", dir) // the throughput run's state settings, too
	cfg.Kafka.Input = LatencyFilterIn
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log, closeLog, err := latencyLog(p.Log)
	if err != nil {
		return nil, err
	}
	defer closeLog()
	var batches stream.BatchLog
	f, err := filter.New(cfg, p.Process, log, func(d *stream.Deps) { d.Timed = batches.Add })
	if err != nil {
		return nil, err
	}
	return FilterLatency(ctx, cl, measured(f, cfg, &batches), docs, LatencyOptions{
		Partitions: o.Partitions, Settle: p.Settle, Timeline: o.Timeline, Trace: p.Trace, Profiles: p.Profiles,
	})
}

// measured is f, built from cfg, as the bench measures it; batches, if not
// nil, is what its pipeline records its batch times in.
func measured(f *filter.Filter, cfg filter.Config, batches *stream.BatchLog) *Filter {
	return &Filter{Pipe: f.Pipeline(), Metrics: f.Registry(), Store: f.Store(), Dir: cfg.State.Dir,
		Sketch: f.Method().Version(), Batches: batches, Close: f.Close}
}

// latencyLog is the filter's logger in the latency mode: with a path, every
// message down to debug as JSON lines to that file (Pipelines.Log); else
// none.
func latencyLog(path string) (*zap.Logger, func(), error) {
	if path == "" {
		return zap.NewNop(), func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	log, err := logging.New(logging.Config{Level: "debug", Format: "json"}, f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return log, func() { _ = log.Sync(); f.Close() }, nil
}
