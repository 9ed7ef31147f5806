package stream

import (
	"context"
	"errors"
	"time"
)

// Runner is what Start runs: a Pipeline, or a command's wrapper around one.
// Run works until ctx is cancelled and returns once the work in hand is
// finished (a Pipeline drains its batches, within shutdown_timeout).
type Runner interface {
	Run(ctx context.Context) error
}

// RunnerFunc is a function as a Runner.
type RunnerFunc func(ctx context.Context) error

// Run calls f(ctx).
func (f RunnerFunc) Run(ctx context.Context) error { return f(ctx) }

// Running is one call of a Runner's Run on a goroutine of its own, owned by
// the caller of Start: Stop cancels Run and waits for it to return, and only
// then may the owner close what Run uses — the Pipeline and its Index. Closing
// them under a Run that is still draining makes the drain write to a closed
// state. Its methods are safe for concurrent use.
type Running struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Run's result, written before done is closed
}

// Start calls r.Run on a new goroutine with a context that is cancelled by
// Stop or with ctx.
func Start(ctx context.Context, r Runner) *Running {
	ctx, cancel := context.WithCancel(ctx)
	g := &Running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(g.done)
		g.err = r.Run(ctx)
	}()
	return g
}

// Done is closed once Run has returned.
func (g *Running) Done() <-chan struct{} { return g.done }

// ErrStopped is WaitFor's error when Run returned before the condition held;
// Stop returns Run's own error.
var ErrStopped = errors.New("stream: run stopped before its work was done")

// WaitFor checks cond every poll until it holds (nil), ctx ends (ctx.Err())
// or Run returns by itself (ErrStopped). Either way Run is left as it is: the
// owner still calls Stop.
func (g *Running) WaitFor(ctx context.Context, cond func() bool, poll time.Duration) error {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-g.done:
			return ErrStopped
		case <-tick.C:
		}
	}
	return nil
}

// Stop cancels Run's context, waits for Run to return and returns its error.
// It may be called again, and after Run has returned by itself; every call
// returns the same error.
func (g *Running) Stop() error {
	g.cancel()
	<-g.done
	return g.err
}
