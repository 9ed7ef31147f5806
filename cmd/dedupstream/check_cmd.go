package main

import (
	"context"
	"io"

	"github.com/dedupstream/dedupstream/stream"
)

// cmdCheck makes the checks "run" makes at start and prints them as tables,
// without changing anything (stream.WriteCheck).
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("check", stderr)
	cfg, err := parseConfig(fs, load, args)
	if err != nil {
		return err
	}
	sec, err := kafkaSecurity(cfg.Kafka)
	if err != nil {
		return err
	}
	return stream.WriteCheck(ctx, stdout, stderr, cfg.Config, sec, cfg.Index.Shards)
}
