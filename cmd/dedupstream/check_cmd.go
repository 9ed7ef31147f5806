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

// cmdCheck makes the checks "run" makes at start and prints them as tables,
// without changing anything: for each broker and each request the filter
// would send with this configuration, the versions kafka-go sends and the
// broker accepts; then each topic of the configuration, its partitions and
// effective max.message.bytes, and the batch and record sizes the writers
// would keep to. It fails when a broker refuses a request, none can be
// reached, or a topic is missing (run would create it only with
// kafka.create_topics).
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
	reqs := compat.Requests(compat.Needs{Sharded: cfg.Index.Shards > 0, SASL: sec.SASL != nil, CreateTopics: cfg.Kafka.CreateTopics})
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
	topics, err := stream.InspectTopics(ctx, cfg.Kafka, sec)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	fmt.Fprintln(stdout, "topics of this configuration")
	fmt.Fprintln(stdout)
	if err := stream.WriteTopics(stdout, topics); err != nil {
		return err
	}
	if topics.LimitsErr != nil {
		fmt.Fprintf(stdout, "\nmax.message.bytes not read (%v): the writers keep kafka.max_batch_bytes\n", topics.LimitsErr)
	}
	k := cfg.Kafka
	record, why := stream.SizeWriters(&k, topics, cfg.Index.Shards > 0)
	fmt.Fprintf(stdout, "\nwriters: batches of at most %d bytes, records of at most %d bytes before verdict headers (%s)\n",
		k.MaxBatchBytes, min(record, cfg.Decode.MaxMessageBytes), why)
	if err := stream.MissingError(cfg.Kafka, topics); err != nil {
		if cfg.Kafka.CreateTopics {
			fmt.Fprintln(stdout, "missing topics would be created at start (kafka.create_topics)")
		} else {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
