package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/compat"
)

// CheckKafka is the check New's caller makes before anything joins a group
// or writes: that the brokers take the requests this configuration sends
// (CheckBrokers) and that its topics exist (CheckTopics, which creates the
// missing ones with kafka.create_topics); then it sizes the writers and the
// largest record to the topics' max.message.bytes (SizeWriters), in cfg.
// With no broker reachable it leaves the configured bounds; the reader keeps
// trying. It refuses a kafka.session_timeout outside the broker's bounds
// (SessionTimeoutError). sharded is index.shards > 0.
func CheckKafka(cfg *Config, sec Security, sharded bool, log *zap.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reached, err := CheckBrokers(ctx, cfg.Kafka, sec, compat.Needs{Sharded: sharded, SASL: sec.SASL != nil, CreateTopics: cfg.Kafka.CreateTopics}, log)
	if err != nil || !reached {
		return err
	}
	topics, err := CheckTopics(ctx, cfg.Kafka, sec, log)
	if err != nil {
		return err
	}
	if err := SessionTimeoutError(cfg.Kafka, topics); err != nil {
		return err
	}
	record, why := SizeWriters(&cfg.Kafka, topics, sharded)
	if record < cfg.Decode.MaxMessageBytes {
		cfg.Decode.TopicLimit, cfg.Decode.TopicLimitWhy = record, why
	}
	log.Info("topics checked", zap.Int("max_batch_bytes", cfg.Kafka.MaxBatchBytes), zap.Int("max_record_bytes", cfg.Decode.RecordLimit()),
		zap.String("limit", why))
	return nil
}

// WriteCheck makes the checks CheckKafka makes, without changing anything,
// and writes them to w as tables: for each broker and each request the
// filter would send with cfg, the versions kafka-go sends and the broker
// accepts; then each topic of cfg, its partitions and effective
// max.message.bytes, and the batch and record sizes the writers would keep
// to. Brokers it cannot reach are named on errw. It fails when a broker
// refuses a request, none can be reached, or a topic is missing (CheckKafka
// would create it only with kafka.create_topics).
func WriteCheck(ctx context.Context, w, errw io.Writer, cfg Config, sec Security, shards int) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	errs, err := writeBrokerCheck(ctx, w, errw, cfg.Kafka, sec, shards)
	if err != nil {
		return err
	}
	topics, err := InspectTopics(ctx, cfg.Kafka, sec)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	fmt.Fprintln(w, "topics of this configuration")
	fmt.Fprintln(w)
	if err := WriteTopics(w, topics); err != nil {
		return err
	}
	if topics.LimitsErr != nil {
		fmt.Fprintf(w, "\nmax.message.bytes not read (%v): the writers keep kafka.max_batch_bytes\n", topics.LimitsErr)
	}
	k := cfg.Kafka
	record, why := SizeWriters(&k, topics, shards > 0)
	fmt.Fprintf(w, "\nwriters: batches of at most %d bytes, records of at most %d bytes before verdict headers (%s)\n",
		k.MaxBatchBytes, min(record, cfg.Decode.MaxMessageBytes), why)
	if topics.MinSessionTimeout > 0 && topics.MaxSessionTimeout > 0 {
		fmt.Fprintf(w, "group session timeout: kafka.session_timeout %s; the broker accepts %s to %s\n",
			cfg.Kafka.SessionTimeout, topics.MinSessionTimeout, topics.MaxSessionTimeout)
	}
	if err := SessionTimeoutError(cfg.Kafka, topics); err != nil {
		errs = append(errs, err)
	}
	if err := MissingError(cfg.Kafka, topics); err != nil {
		if cfg.Kafka.CreateTopics {
			fmt.Fprintln(w, "missing topics would be created at start (kafka.create_topics)")
		} else {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeBrokerCheck writes WriteCheck's table of each broker's request
// versions and returns each broker's refusals; err when none answered.
func writeBrokerCheck(ctx context.Context, w, errw io.Writer, k KafkaConfig, sec Security, shards int) (refused []error, err error) {
	found, unreachable, err := ProbeBrokers(ctx, k, sec)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no broker of %v answered: %w", k.Brokers, unreachable)
	}
	if unreachable != nil {
		fmt.Fprintf(errw, "dedupstream: not reachable: %v\n", unreachable)
	}
	reqs := compat.Requests(compat.Needs{Sharded: shards > 0, SASL: sec.SASL != nil, CreateTopics: k.CreateTopics})
	fmt.Fprintf(w, "requests of this configuration (index.shards %d, SASL %t) as kafka-go %s sends them\n\n", shards, sec.SASL != nil, compat.KafkaGo)
	for _, b := range found {
		rows := compat.Check(b.Versions, reqs)
		if err := compat.WriteTable(w, b.Addr, rows); err != nil {
			return nil, err
		}
		fmt.Fprintln(w)
		refused = append(refused, compat.Err(b.Addr, rows))
	}
	return refused, nil
}
