package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/offline/lab/demo"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/bench"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// errDrained is what midRunStop's hook makes Run return at the end of its
// drain: only a caller that waited for Run can report it.
var errDrained = errors.New("the drain's last stage")

// midRunStop stops a filter in the middle of its run: its option's hook
// cancels ctx once the first batch is fetched, so Run drains that batch; when
// the batch is committed (the end of the drain) it asks the state for a
// document, to see whether the state is still open, and returns errDrained.
type midRunStop struct {
	ctx      context.Context
	opt      appOption
	stateErr error // the state's answer at the end of the drain
	asked    bool
}

func newMidRunStop(t *testing.T) *midRunStop {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &midRunStop{ctx: ctx}
	s.opt = func(d *stream.Deps) {
		idx := d.Index
		d.AfterStage = func(stage string, n int) error {
			switch {
			case stage == stream.AfterFetched && n == 1:
				cancel()
			case stage == stream.AfterCommitted && n == 1:
				_, _, s.stateErr = idx.Exact(0, 1)
				s.asked = true
				return errDrained
			}
			return nil
		}
	}
	return s
}

// check checks what the command returned: the cancellation and Run's own
// error (so it waited for Run), and the state was open until the drain ended.
func (s *midRunStop) check(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errDrained) {
		t.Errorf("returned %v, want context.Canceled and Run's %q: it did not wait for Run to finish draining", err, errDrained)
	}
	if !s.asked || s.stateErr != nil {
		t.Errorf("state at the end of the drain: asked %t, answered %v; want it open until Run returns", s.asked, s.stateErr)
	}
}

// TestDemoStopWaitsForDrain cancels the demo's filter while a batch is in
// hand: runDemoFilter returns only after Run has drained it, and closes the
// state after that.
func TestDemoStopWaitsForDrain(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq", "pages.dups"}, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	o := demoOptions{pages: 40, seed: 1, partitions: 1, threshold: 0.8, mode: "tag", stateDir: t.TempDir()}
	pages, err := demo.Pages(demo.Options{Pages: o.pages, Seed: o.seed})
	if err != nil {
		t.Fatal(err)
	}
	cfg, cleanup, err := demoConfig(o, b.Addr())
	defer cleanup()
	if err != nil {
		t.Fatal(err)
	}
	if err := produce(context.Background(), b.Addr(), "pages", pages.Msgs); err != nil {
		t.Fatal(err)
	}
	s := newMidRunStop(t)
	_, err = runDemoFilter(s.ctx, cfg, pages.Len()+1, false, io.Discard, s.opt)
	s.check(t, err)
}

// TestBenchStopWaitsForDrain cancels a bench measurement while a batch is in
// hand: measure returns only after Run has drained it, so the bench closes
// the state after that.
func TestBenchStopWaitsForDrain(t *testing.T) {
	addr, cfg := testBroker(t, 1, "bench-stop")
	cfg.Admin.Listen = ""
	msgs := metricsInput(40, 0)
	if err := produce(context.Background(), addr, "pages", msgs); err != nil {
		t.Fatal(err)
	}
	s := newMidRunStop(t)
	a, err := newApp(cfg, zaptest.NewLogger(t), s.opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bench.Measure(s.ctx, a.pipe, len(msgs)+1)
	s.check(t, err)
	closeFilter(t, a)
}

// brokenListener fails every Accept with err; closed is closed by Close,
// which http.Server.Serve calls as it returns.
type brokenListener struct {
	err    error
	once   sync.Once
	closed chan struct{}
}

func (l *brokenListener) Accept() (net.Conn, error) { return nil, l.err }
func (l *brokenListener) Close() error              { l.once.Do(func() { close(l.closed) }); return nil }
func (l *brokenListener) Addr() net.Addr            { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// TestAdminStopWaitsForServe: stopping the admin server waits for its serving
// goroutine, so it reports how serving ended — here with a failed listener.
// Serve has returned (it closes the listener as it does) before stop is
// called; only the serving goroutine knows with what.
func TestAdminStopWaitsForServe(t *testing.T) {
	ln := &brokenListener{err: errors.New("accept failed"), closed: make(chan struct{})}
	s := startAdmin(ln, http.NotFoundHandler(), zaptest.NewLogger(t))
	<-ln.closed
	if err := s.stop(time.Minute); !errors.Is(err, ln.err) {
		t.Errorf("stop returned %v, want the serving goroutine's %v", err, ln.err)
	}
	select {
	case <-s.done:
	default:
		t.Error("stop returned before the serving goroutine")
	}
}

// runDemoFilter runs the filter until it has processed n records (or ctx
// ends), then stops it, waits for its drain and closes it. opts adjust the
// pipeline (tests).
func runDemoFilter(ctx context.Context, cfg Config, n int, verbose bool, stderr io.Writer, opts ...appOption) (demo.Result, error) {
	log, err := demoLog(verbose, stderr)
	if err != nil {
		return demo.Result{}, err
	}
	a, err := newApp(cfg, log, opts...)
	if err != nil {
		return demo.Result{}, err
	}
	return demo.RunOne(ctx, demoFilter{a}, n)
}
