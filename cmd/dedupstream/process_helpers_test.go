package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream/embedded"
)

// buildBinary builds dedupstream, so a test can run it as a real process,
// kill it and start it again.
//
// The tests that only drive such processes call t.Parallel: they spend most
// of their time waiting on the processes and the brokers, so two of them
// (go test's -parallel, GOMAXPROCS) overlap on a 2-core machine. Tests that
// run the command in process, set the environment or kill a shared broker
// stay sequential.
func buildBinary(t *testing.T) string {
	t.Helper()
	return buildBinaryTags(t, "")
}

// buildCrashBinary is buildBinary with the crash-point hook compiled in
// (-tags crashpoint), for the tests that set crashPointEnv.
func buildCrashBinary(t *testing.T) string {
	t.Helper()
	return buildBinaryTags(t, "crashpoint")
}

// binaries are the binaries built for the tests, one per set of build tags,
// in a directory that TestMain removes: a dozen tests run the binary, and
// each would otherwise link it again, in parallel tests at the same time.
var binaries struct {
	mu    sync.Mutex
	dir   string
	built map[string]string // tags → path
}

func buildBinaryTags(t *testing.T, tags string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary with:", err)
	}
	binaries.mu.Lock()
	defer binaries.mu.Unlock()
	if bin, ok := binaries.built[tags]; ok {
		return bin
	}
	if binaries.dir == "" {
		if binaries.dir, err = os.MkdirTemp("", "dedupstream-test-bin-"); err != nil {
			t.Fatal(err)
		}
		binaries.built = make(map[string]string)
	}
	bin := filepath.Join(binaries.dir, "dedupstream-"+cmp.Or(tags, "plain"))
	out, err := exec.Command(gobin, "build", "-tags", tags, "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	binaries.built[tags] = bin
	return bin
}

// removeBinaries removes what buildBinaryTags built; TestMain calls it.
func removeBinaries() {
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
}

// processBroker starts "dedupstream broker" (bin) as a process of its own
// with the default topics on two partitions, for filter processes that the
// tests kill: its low minimum session timeout lets a killed member be dropped
// within the group's kafka.session_timeout. In its own process the broker is
// built without the race detector and shares no scheduler with the test: in
// the test process under -race, kfake's single request loop fell behind the
// crash harness's fetches after some fifty kills and the children timed out.
func processBroker(t *testing.T, bin string) string {
	t.Helper()
	return brokerProc(t, bin, 2)
}

// filterEnv is the environment of a filter process on broker addr with state
// in dir: the test's own environment without DEDUPSTREAM_ variables, plus the
// given DEDUPSTREAM_ settings.
func filterEnv(addr, dir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPrefix) {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{
		"DEDUPSTREAM_KAFKA_BROKERS=" + addr,
		"DEDUPSTREAM_STATE_DIR=" + dir,
		"DEDUPSTREAM_ADMIN_LISTEN=127.0.0.1:0",
		"DEDUPSTREAM_LOG_FORMAT=json",
		"DEDUPSTREAM_LOG_LEVEL=warn",
	}, extra...)...)
}

// proc is a running dedupstream process and what it has written.
type proc struct {
	cmd    *exec.Cmd
	out    syncBuffer // stdout and stderr together
	done   chan struct{}
	err    error // from Wait, once done is closed
	killed bool  // by the test
}

func startProc(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		if *keepLogs != "" && t.Failed() {
			dumpGoroutines(p)
		}
		p.kill()
		keepLog(t, p)
	})
	return p
}

var keepLogs = flag.String("keep-logs", "", "write the whole output of every process a failed test started into this directory")

// dumpGoroutines has a process still running write its goroutines to its
// output (SIGQUIT, the Go runtime's dump and exit), for -keep-logs.
func dumpGoroutines(p *proc) {
	select {
	case <-p.done:
		return
	default:
	}
	if p.signal(syscall.SIGQUIT) == nil {
		p.wait(5 * time.Second)
	}
}

// keepLog writes p's output into -keep-logs when t failed.
func keepLog(t *testing.T, p *proc) {
	if *keepLogs == "" || !t.Failed() {
		return
	}
	if err := os.MkdirAll(*keepLogs, 0o755); err != nil {
		t.Log(err)
		return
	}
	name := fmt.Sprintf("%s-%d.log", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), p.cmd.Process.Pid)
	if err := os.WriteFile(filepath.Join(*keepLogs, name), []byte(p.out.String()), 0o644); err != nil {
		t.Log(err)
	}
}

// wait waits up to d for the process to exit and reports whether it did.
func (p *proc) wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// kill sends SIGKILL (if still running) and waits for the exit.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.killed = true
	p.cmd.Process.Kill() //nolint:errcheck // it may have exited meanwhile; Wait tells
	<-p.done
}

func (p *proc) signal(s os.Signal) error { return p.cmd.Process.Signal(s) }

// exitCode is the process's exit status, or -1 if a signal ended it.
func (p *proc) exitCode() int { return p.cmd.ProcessState.ExitCode() }

// signalled reports whether the exited process was ended by sig.
func (p *proc) signalled(sig syscall.Signal) bool {
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// waitOutput waits up to d for the process to write s; false if it exits or
// the time runs out first.
func (p *proc) waitOutput(s string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(p.out.String(), s) {
			return true
		}
		select {
		case <-p.done:
			return strings.Contains(p.out.String(), s)
		default:
		}
	}
	return false
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (a process, a
// logger) and a reader polling it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitDrained waits up to d until group has committed all of topic.
func waitDrained(t *testing.T, addr, group, topic string, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		lag, err := embedded.GroupLag(ctx, addr, group, topic)
		if err == nil && lag == 0 {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("group %s still %d records behind on %s after %s (%v)", group, lag, topic, d, errors.Join(err, ctx.Err()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
