package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/compat"
)

// cmdCheck asks the brokers for their API versions and prints, for each broker
// and each request the filter would send with this configuration, the versions
// kafka-go sends and the broker accepts: the check "run" makes at start, as a
// table. It fails when a broker refuses a request or none can be reached.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("check", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := load()
	if err != nil {
		return err
	}
	sec, err := kafkaSecurity(cfg.Kafka)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	found, unreachable, err := stream.ProbeBrokers(ctx, cfg.Kafka, sec)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return fmt.Errorf("no broker of %v answered: %w", cfg.Kafka.Brokers, unreachable)
	}
	if unreachable != nil {
		fmt.Fprintf(stderr, "dedupstream: not reachable: %v\n", unreachable)
	}
	reqs := compat.Requests(compat.Needs{Sharded: cfg.Index.Shards > 0, SASL: sec.SASL != nil})
	fmt.Fprintf(stdout, "requests of this configuration (index.shards %d, SASL %t) as kafka-go %s sends them\n\n", cfg.Index.Shards, sec.SASL != nil, compat.KafkaGo)
	var errs []error
	for _, b := range found {
		rows := compat.Check(b.Versions, reqs)
		if err := compat.WriteTable(stdout, b.Addr, rows); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		errs = append(errs, compat.Err(b.Addr, rows))
	}
	return errors.Join(errs...)
}
