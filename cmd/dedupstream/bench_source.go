package main

import (
	"context"
	"errors"
	"os"

	"github.com/dedupstream/dedupstream/stream/bench"
	"github.com/dedupstream/dedupstream/stream/confkey"
)

// benchBroker starts "dedupstream broker" as a child process on a free loopback
// port, its log in a temporary directory (--broker-log disk) or in its memory,
// unless --brokers names a cluster (then reached with --config's security
// settings), and returns where the bench's topics are and a function that
// stops the broker and removes its log.
func benchBroker(ctx context.Context, o benchOptions) (bench.Cluster, func(), error) {
	if o.brokers != "" {
		sec, err := kafkaSecurity(o.pipes.Filter.Kafka)
		return bench.Cluster{Addr: confkey.SplitList(o.brokers)[0], Security: sec}, func() {}, err
	}
	if o.config != "" {
		return bench.Cluster{}, nil, errors.New("bench --config: only with --brokers (the embedded broker is plaintext)")
	}
	exe, err := os.Executable()
	if err != nil {
		return bench.Cluster{}, nil, err
	}
	return bench.BrokerProcess(ctx, exe, o.Partitions, o.brokerLog == "disk")
}
