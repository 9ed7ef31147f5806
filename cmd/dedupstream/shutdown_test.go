package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/embedded"
)

// TestSIGTERMDrains runs the filter as a process, holds its second batch in
// the decide stage (DEDUPSTREAM_CRASH_POINT pause), and sends SIGTERM there:
// the process stops fetching, finishes the batches in hand, commits them and
// exits 0, leaving exactly the committed records on the output topic and a
// state that opens. A second run takes the rest without loss.
func TestSIGTERMDrains(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := buildCrashBinary(t)
	addr, dir := processBroker(t, bin), t.TempDir()
	in := metricsInput(400, 0)
	if err := produce(context.Background(), addr, "pages", in); err != nil {
		t.Fatal(err)
	}
	env := filterEnv(addr, dir, "DEDUPSTREAM_BATCH_SIZE=16", "DEDUPSTREAM_KAFKA_GROUP=sigterm", "DEDUPSTREAM_LOG_LEVEL=info")
	p := startProc(t, bin, append(env, crashPointEnv+"=decided:2:pause=1s"), "run")
	if !p.waitOutput("crash point decided:2: pausing", time.Minute) {
		t.Fatalf("the filter never reached its second batch:\n%s", p.out.String())
	}
	readyz := "http://" + adminAddr(t, p) + "/readyz"
	if err := p.signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, readyz, http.StatusServiceUnavailable, "while draining")
	if !p.wait(30*time.Second) || p.exitCode() != 0 {
		t.Fatalf("SIGTERM: exit %v, want 0:\n%s", p.err, p.out.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lag, err := embedded.GroupLag(ctx, addr, "sigterm", "pages")
	if err != nil {
		t.Fatal(err)
	}
	committed := len(in) - int(lag)
	outs := groupBy(readTopic(t, addr, "pages.out"), func(m kafka.Message) string { return string(m.Key) })
	if committed < 2*16 || len(outs) != committed {
		t.Errorf("after SIGTERM: %d records committed (want ≥ 2 batches of 16), %d on the output topic (want the same)", committed, len(outs))
	}
	if lag == 0 {
		t.Errorf("the whole input was committed: fetching did not stop at SIGTERM")
	}
	s := startProc(t, bin, env, "state", "stats", "--state", dir)
	if !s.wait(30*time.Second) || s.exitCode() != 0 {
		t.Fatalf("state stats after SIGTERM: %v\n%s", s.err, s.out.String())
	}

	p = startProc(t, bin, env, "run")
	waitDrained(t, addr, "sigterm", "pages", time.Minute)
	p.signal(syscall.SIGTERM) //nolint:errcheck // Wait reports how it ended
	if !p.wait(30*time.Second) || p.exitCode() != 0 {
		t.Fatalf("second run, SIGTERM: exit %v, want 0:\n%s", p.err, p.out.String())
	}
	checkEveryKey(t, addr, in)
}

// heldFilter produces 100 pages and starts the filter binary with its
// first batch held for 30s where the drain cannot cancel it; it returns the
// running process, the environment for a restart and the input.
func heldFilter(t *testing.T, group string, extraEnv ...string) (p *proc, bin, addr string, env []string, in []kafka.Message) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin = buildCrashBinary(t)
	addr, dir := processBroker(t, bin), t.TempDir()
	in = metricsInput(100, 0)
	if err := produce(context.Background(), addr, "pages", in); err != nil {
		t.Fatal(err)
	}
	// The killed member is dropped after 1s.
	env = filterEnv(addr, dir, append([]string{"DEDUPSTREAM_KAFKA_GROUP=" + group, "DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=1s"}, extraEnv...)...)
	p = startProc(t, bin, append(env, crashPointEnv+"=decided:1:pause=30s"), "run")
	if !p.waitOutput("crash point decided:1: pausing", time.Minute) {
		t.Fatalf("the filter never reached its first batch:\n%s", p.out.String())
	}
	return p, bin, addr, env, in
}

// restartAndCheck runs the filter again until group's lag is 0, stops it with
// SIGTERM and checks that every input key got its outcome.
func restartAndCheck(t *testing.T, bin, addr, group string, env []string, in []kafka.Message) {
	t.Helper()
	p := startProc(t, bin, env, "run")
	waitDrained(t, addr, group, "pages", time.Minute)
	p.signal(syscall.SIGTERM) //nolint:errcheck // Wait reports how it ended
	if !p.wait(30*time.Second) || p.exitCode() != 0 {
		t.Fatalf("restart, SIGTERM: exit %v, want 0:\n%s", p.err, p.out.String())
	}
	checkEveryKey(t, addr, in)
}

// TestSecondSignalExitsAtOnce sends SIGTERM while a batch is held for 30s,
// then a second one: the process exits at once with status 130 instead of
// waiting for the drain, and the next start replays the unfinished batch.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel()
	p, bin, addr, env, in := heldFilter(t, "second")
	if err := p.signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if p.wait(500 * time.Millisecond) {
		t.Fatalf("the filter exited on the first signal with a batch held (%v):\n%s", p.err, p.out.String())
	}
	if err := p.signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !p.wait(5 * time.Second) {
		t.Fatalf("the filter did not exit within 5s of the second signal:\n%s", p.out.String())
	}
	if p.exitCode() != 130 || !strings.Contains(p.out.String(), "second signal") {
		t.Fatalf("second signal: exit %v, want status 130:\n%s", p.err, p.out.String())
	}
	restartAndCheck(t, bin, addr, "second", env, in)
}

// TestStopOverrunExits holds a batch for 30s where the drain cannot reach
// it, with shutdown_timeout 1s: after SIGTERM the process gives up at
// shutdown_timeout + closeGrace with status 124 instead of hanging, and the
// next start replays the held batch and loses nothing.
func TestStopOverrunExits(t *testing.T) {
	t.Parallel()
	p, bin, addr, env, in := heldFilter(t, "overrun", "DEDUPSTREAM_SHUTDOWN_TIMEOUT=1s")
	if err := p.signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	limit := time.Second + closeGrace
	if p.wait(limit - time.Second) {
		t.Fatalf("the filter exited before shutdown_timeout + closeGrace (%v):\n%s", p.err, p.out.String())
	}
	if !p.wait(10 * time.Second) {
		t.Fatalf("the filter still runs %v after SIGTERM:\n%s", limit+10*time.Second, p.out.String())
	}
	if p.exitCode() != exitCodeShutdownTimeout || !strings.Contains(p.out.String(), "overran shutdown_timeout") {
		t.Fatalf("overrun: exit %v, want status %d:\n%s", p.err, exitCodeShutdownTimeout, p.out.String())
	}
	restartAndCheck(t, bin, addr, "overrun", env, in)
}

var adminLine = regexp.MustCompile(`"msg":"admin listening","addr":"([^"]+)"`)

// adminAddr finds the admin port in the process's JSON log (level info).
func adminAddr(t *testing.T, p *proc) string {
	t.Helper()
	m := adminLine.FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatalf("no admin address in the log:\n%s", p.out.String())
	}
	return m[1]
}

// TestSIGTERMWhileShardsAreDown stops a sharded instance whose batches wait
// for the answers of shards whose owner was SIGKILLed and whose session has
// not expired: past shutdown_timeout the batches in hand are given up,
// uncommitted, and the process still exits 0 — a stop during another
// instance's outage is an orchestrator's ordinary day, not a failure.
func TestSIGTERMWhileShardsAreDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two filter processes and a broker process")
	}
	in := corpusInput(t, "reuters21578.tar.gz", 100)
	bin := buildBinary(t)
	addr := brokerProc(t, bin, 4)
	env := func() []string {
		return shardedEnv(addr, t.TempDir(), 2, "DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=30s", "DEDUPSTREAM_SHUTDOWN_TIMEOUT=2s")
	}
	a, b := startProc(t, bin, env(), "run"), startProc(t, bin, env(), "run")
	waitAllReady(t, []*proc{a, b}, time.Minute)
	b.kill()
	produceTo(t, addr, "pages", append(append([]kafka.Message(nil), in.originals...), in.copies...))
	if !a.waitOutput("sending the probes again", 30*time.Second) {
		t.Fatalf("no batch waited for the dead instance's shards:\n%s", tail(a.out.String(), 3000))
	}
	if err := a.signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !a.wait(20*time.Second) || a.exitCode() != 0 {
		t.Fatalf("SIGTERM with batches waiting for shards that are down: exit %v, want 0:\n%s", a.err, tail(a.out.String(), 3000))
	}
	if !strings.Contains(a.out.String(), "shutdown_timeout passed with batches in hand") {
		t.Errorf("the stop did not say it gave batches up:\n%s", tail(a.out.String(), 3000))
	}
}
