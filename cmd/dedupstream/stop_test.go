package main

import (
	"context"
	"errors"
	"io"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/offline/lab/demo"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/bench"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/filter"
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
	opt      filter.Option
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
	pages, err := demo.Pages(demo.Options{Pages: 40, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg, cleanup, err := demo.Config(demo.FilterSettings{Brokers: []string{b.Addr()}, Threshold: 0.8, Mode: "tag", StateDir: t.TempDir()})
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
	a, err := newFilter(cfg, zaptest.NewLogger(t), s.opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bench.Measure(s.ctx, a.Pipeline(), len(msgs)+1)
	s.check(t, err)
	closeFilter(t, a)
}

// runDemoFilter runs the filter until it has processed n records (or ctx
// ends), then stops it, waits for its drain and closes it. opts adjust the
// pipeline (tests).
func runDemoFilter(ctx context.Context, cfg Config, n int, verbose bool, stderr io.Writer, opts ...filter.Option) (demo.Result, error) {
	log, err := demoLog(verbose, stderr)
	if err != nil {
		return demo.Result{}, err
	}
	a, err := newFilter(cfg, log, opts...)
	if err != nil {
		return demo.Result{}, err
	}
	return demo.RunOne(ctx, a, n)
}
