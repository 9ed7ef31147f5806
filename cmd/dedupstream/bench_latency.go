package main

import (
	"context"
	"os"

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
	return bench.FilterLatency(ctx, cl, a.benchFilter(&batches), docs, bench.LatencyOptions{
		Partitions: o.partitions, Settle: o.settle, Timeline: o.timeline, Trace: &o.trace,
		Profiles: bench.Profiles{CPU: o.cpuProfile, Mem: o.memProfile},
	})
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
