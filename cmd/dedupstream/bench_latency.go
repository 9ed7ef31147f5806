package main

import (
	"context"
	"errors"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/bench"
)

// passthroughLatency runs the passthrough in latency mode.
func passthroughLatency(ctx context.Context, cl bench.Cluster, o benchOptions, docs *bench.Encoded) (*bench.LatencyRun, error) {
	cfg := benchConfig(cl, o, bench.LatencyPassOut, "bench-passthrough-latency")
	cfg.Kafka.Input = bench.LatencyPassIn
	p := stream.NewPassthrough(cfg.Config, zap.NewNop())
	defer p.Close()
	return bench.RunLatency(ctx, cl, o.partitions, p, bench.LatencyPassIn, bench.LatencyPassOut, docs, nil)
}

// filterLatency runs the filter in latency mode on the state the throughput
// run left, so the latency is that of a filter with o.docs documents stored.
func filterLatency(ctx context.Context, cl bench.Cluster, o benchOptions, dir string, docs *bench.Encoded) (*bench.LatencyRun, error) {
	cfg := filterConfig(cl, o, bench.LatencyFilterOut, "bench-filter-latency", dir) // the throughput run's state settings, too
	cfg.Kafka.Input = bench.LatencyFilterIn
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
	var settled time.Duration
	if o.settle && a.store != nil {
		settled = bench.SettleCompactions(ctx, a.store)
	}
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
	var watch func() []bench.StateSample
	if o.timeline && a.store != nil {
		watch = bench.WatchState(a.store.LevelShape)
	}
	run, err := bench.RunLatency(ctx, cl, o.partitions, a.pipe, bench.LatencyFilterIn, bench.LatencyFilterOut, docs, &o.trace)
	stopProfile() // the run, not the close below
	if watch != nil {
		states := watch()
		if run != nil {
			run.Timeline = bench.Annotate(run.Timeline, states)
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
