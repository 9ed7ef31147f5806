package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/logging"
	"github.com/dedupstream/dedupstream/stream/shard"
)

// cmdStateCollect builds a single-instance state directory holding every
// document of a sharded filter, read from its sequence log (shard.Collect):
// the input of offline cluster and report, state backup, or a re-sharded
// filter. It takes the filter's own configuration (kafka.*, the security
// settings, sketch.*), and --state names the new directory.
func cmdStateCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("state collect", stderr)
	cfg, err := parseConfig(fs, load, args)
	if err != nil {
		return err
	}
	method, err := cfg.NewMethod()
	if err != nil {
		return err
	}
	sec, err := kafkaSecurity(cfg.Kafka)
	if err != nil {
		return err
	}
	log, err := logging.New(cfg.Log, stderr)
	if err != nil {
		return err
	}
	so := cfg.State.ForMethod(method)
	so.Logger = log.Named("state")
	start := time.Now()
	stats, err := shard.CollectInto(ctx, shard.CollectOptions{
		Kafka: cfg.Kafka, Security: sec, Method: method, Containment: cfg.Sketch.ContainmentThreshold(),
		Batch: cfg.Batch.Size, Logger: log.Named("collect"),
	}, so)
	if err == nil {
		fmt.Fprintf(stdout, "collected %d documents of group %s from %d probe-log records (%d finals, %d malformed skipped) into %s in %s\n",
			stats.Documents, cfg.Kafka.Group, stats.Records, stats.Finals, stats.Malformed, cfg.State.Dir, time.Since(start).Round(time.Millisecond))
	} else {
		log.Error("state collect failed", zap.Error(err))
	}
	return err
}
