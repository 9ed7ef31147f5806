package stream_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// events is an ordered log written by several goroutines.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
}

func (e *events) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

// TestStopWaitsForRun: Stop returns only once Run has returned, with Run's
// error, so that the owner closes the state after the drain, never under it.
// The fake Run drains until the test releases it.
func TestStopWaitsForRun(t *testing.T) {
	errDrained := errors.New("drained")
	var log events
	draining, release := make(chan struct{}), make(chan struct{})
	g := stream.Start(context.Background(), stream.RunnerFunc(func(ctx context.Context) error {
		<-ctx.Done()
		close(draining)
		<-release
		log.add("run returned")
		return errDrained
	}))
	stopped := make(chan error, 1)
	go func() {
		err := g.Stop()
		log.add("store closed") // what the owner does once Stop returns
		stopped <- err
	}()
	<-draining
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while Run was draining", err)
	default:
	}
	close(release)
	if err := <-stopped; !errors.Is(err, errDrained) {
		t.Errorf("Stop returned %v, want Run's error %v", err, errDrained)
	}
	if got, want := log.get(), []string{"run returned", "store closed"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	select {
	case <-g.Done():
	default:
		t.Error("Done not closed after Stop")
	}
	if err := g.Stop(); !errors.Is(err, errDrained) {
		t.Errorf("second Stop returned %v, want %v", err, errDrained)
	}
}

// TestWaitFor: WaitFor returns nil once the condition holds, ctx's error when
// ctx ends, and ErrStopped when Run returns by itself (Stop then returns
// Run's error); none of them stops Run.
func TestWaitFor(t *testing.T) {
	started := func() (*stream.Running, *atomic.Bool) {
		var up atomic.Bool
		return stream.Start(context.Background(), stream.RunnerFunc(func(ctx context.Context) error {
			up.Store(true)
			<-ctx.Done()
			return nil
		})), &up
	}
	g, up := started()
	if err := g.WaitFor(context.Background(), up.Load, time.Millisecond); err != nil {
		t.Errorf("condition met: WaitFor returned %v", err)
	}
	select {
	case <-g.Done():
		t.Error("WaitFor stopped Run")
	default:
	}
	if err := g.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}

	g, _ = started()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.WaitFor(ctx, func() bool { return false }, time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Errorf("ctx cancelled: WaitFor returned %v, want context.Canceled", err)
	}
	if err := g.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}

	errBroken := errors.New("broken")
	g = stream.Start(context.Background(), stream.RunnerFunc(func(context.Context) error { return errBroken }))
	if err := g.WaitFor(context.Background(), func() bool { return false }, time.Millisecond); !errors.Is(err, stream.ErrStopped) {
		t.Errorf("Run returned: WaitFor returned %v, want ErrStopped", err)
	}
	if err := g.Stop(); !errors.Is(err, errBroken) {
		t.Errorf("Stop returned %v, want Run's %v", err, errBroken)
	}
}
