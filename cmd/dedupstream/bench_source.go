package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// benchBroker starts "dedupstream broker" as a child process on a free loopback
// port, unless -brokers names one, and returns its address.
func benchBroker(ctx context.Context, o benchOptions) (string, func(), error) {
	if o.brokers != "" {
		return o.brokers, func() {}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "broker", "--listen", "127.0.0.1:0",
		"--topics", strings.Join([]string{"bench", "bench.out", "bench.pass", "bench.dlq",
			latBroker, latPassIn, latPassOut, latFilterIn, latFilterOut}, ","), "--partitions", strconv.Itoa(o.partitions),
		"--min-session-timeout", "100ms") // fleet mode: instances that stop leave the group at once
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start broker process: %w", err)
	}
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	var addr string
	if _, serr := fmt.Sscanf(line, "broker listening on %s", &addr); err != nil || serr != nil {
		stop()
		return "", nil, fmt.Errorf("broker process said %q: %v", line, err)
	}
	return addr, stop, nil
}
