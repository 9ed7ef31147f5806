package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// The bench's topics: the throughput runs read Input; each run of the
// latency mode reads its own input topic, which the rate-limited producer
// fills while the run is going.
const (
	Input, Output, PassOutput, DeadLetter = "bench", "bench.out", "bench.pass", "bench.dlq"
	LatencyFloor                          = "bench.lat.b" // read back as written: the harness's own floor
	LatencyPassIn, LatencyPassOut         = "bench.lat.p", "bench.lat.pass"
	LatencyFilterIn, LatencyFilterOut     = "bench.lat.f", "bench.lat.out"
)

// Topics are all the bench's topics, for a broker to create.
func Topics() []string {
	return []string{Input, Output, PassOutput, DeadLetter,
		LatencyFloor, LatencyPassIn, LatencyPassOut, LatencyFilterIn, LatencyFilterOut}
}

// StartBroker starts cmd, a broker process that prints "broker listening on
// ADDR" as its first line of output, and returns the cluster at ADDR and a
// function that stops the process and then calls cleanup.
func StartBroker(cmd *exec.Cmd, cleanup func()) (Cluster, func(), error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		cleanup()
		return Cluster{}, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		cleanup()
		return Cluster{}, nil, fmt.Errorf("start broker process: %w", err)
	}
	stop := func() {
		if cmd.Process.Signal(os.Interrupt) != nil { // Windows has no interrupt to send
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		cleanup()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	var addr string
	if _, serr := fmt.Sscanf(line, "broker listening on %s", &addr); err != nil || serr != nil {
		stop()
		return Cluster{}, nil, fmt.Errorf("broker process said %q: %v", line, err)
	}
	return Cluster{Addr: addr, BrokerPID: cmd.Process.Pid}, stop, nil
}

// BrokerProcess starts exe's "broker" command as a child process on a
// free loopback port with the bench's topics of partitions partitions, its
// log in a temporary directory (onDisk) or in its memory, and returns where
// it is and a function that stops it and removes its log.
func BrokerProcess(ctx context.Context, exe string, partitions int, onDisk bool) (Cluster, func(), error) {
	cmd := exec.CommandContext(ctx, exe, "broker", "--listen", "127.0.0.1:0",
		"--topics", strings.Join(Topics(), ","), "--partitions", strconv.Itoa(partitions),
		"--min-session-timeout", "100ms") // fleet mode: instances that stop leave the group at once
	removeLog := func() {}
	if onDisk {
		// An in-memory log lives on the broker's Go heap, which only grows:
		// during a 1M-document run's latency mode, perf put half the broker's
		// CPU in the kernel zeroing fresh pages for it (dedupstream bench).
		// A log in files is held by the page cache.
		dir, err := os.MkdirTemp("", "dedupstream-bench-broker-*")
		if err != nil {
			return Cluster{}, nil, fmt.Errorf("bench broker log: %w", err)
		}
		removeLog = func() { os.RemoveAll(dir) }
		cmd.Args = append(cmd.Args, "--data", dir)
	}
	return StartBroker(cmd, removeLog)
}

// FloorLatency measures the harness alone: producer, broker and read-back,
// with no pipeline between them, on the topic LatencyFloor.
func FloorLatency(ctx context.Context, c Cluster, partitions int, docs *Encoded) (*LatencyRun, error) {
	return RunLatency(ctx, c, partitions, nil, LatencyFloor, LatencyFloor, docs, nil)
}

// NewLatencyDocs are the documents of a latency mode: src's after the first
// first ones (the throughput run's), n after LatencyWarmup, produced at rate
// or, with rate 0, at half docsPerSec (the throughput run's), so that the
// latency is not that of a backlog.
func NewLatencyDocs(src *Source, first, n int, rate, docsPerSec float64) LatencyDocs {
	ld := LatencyDocs{Src: src, First: first, Warm: LatencyWarmup, N: n, Rate: rate}
	if ld.Rate == 0 {
		ld.Rate = max(1, 0.5*docsPerSec)
	}
	return ld
}
