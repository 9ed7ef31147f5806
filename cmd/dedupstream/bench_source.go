package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/dedupstream/dedupstream/stream/bench"
)

// benchBroker starts "dedupstream broker" as a child process on a free loopback
// port, its log in a temporary directory (--broker-log disk) or in its memory,
// unless --brokers names a cluster (then reached with --config's security
// settings), and returns where the bench's topics are and a function that
// stops the broker and removes its log.
func benchBroker(ctx context.Context, o benchOptions) (bench.Cluster, func(), error) {
	if o.brokers != "" {
		sec, err := kafkaSecurity(o.kafka)
		return bench.Cluster{Addr: splitList(o.brokers)[0], Security: sec}, func() {}, err
	}
	if o.config != "" {
		return bench.Cluster{}, nil, errors.New("bench --config: only with --brokers (the embedded broker is plaintext)")
	}
	exe, err := os.Executable()
	if err != nil {
		return bench.Cluster{}, nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "broker", "--listen", "127.0.0.1:0",
		"--topics", strings.Join(bench.Topics(), ","), "--partitions", strconv.Itoa(o.partitions),
		"--min-session-timeout", "100ms") // fleet mode: instances that stop leave the group at once
	removeLog := func() {}
	if o.brokerLog == "disk" {
		// An in-memory log lives on the broker's Go heap, which only grows:
		// during a 1M-document run's latency mode, perf put half the broker's
		// CPU in the kernel zeroing fresh pages for it (dedupstream bench).
		// A log in files is held by the page cache.
		dir, err := os.MkdirTemp("", "dedupstream-bench-broker-*")
		if err != nil {
			return bench.Cluster{}, nil, err
		}
		removeLog = func() { os.RemoveAll(dir) }
		cmd.Args = append(cmd.Args, "--data", dir)
	}
	return bench.StartBroker(cmd, removeLog)
}
