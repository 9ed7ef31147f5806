package admin

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

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

// TestStopWaitsForServe: stopping the server waits for its serving
// goroutine, so it reports how serving ended — here with a failed listener.
// Serve has returned (it closes the listener as it does) before Stop is
// called; only the serving goroutine knows with what.
func TestStopWaitsForServe(t *testing.T) {
	ln := &brokenListener{err: errors.New("accept failed"), closed: make(chan struct{})}
	s := Start(ln, http.NotFoundHandler(), zaptest.NewLogger(t))
	<-ln.closed
	if err := s.Stop(time.Minute); !errors.Is(err, ln.err) {
		t.Errorf("Stop returned %v, want the serving goroutine's %v", err, ln.err)
	}
	select {
	case <-s.done:
	default:
		t.Error("Stop returned before the serving goroutine")
	}
}
