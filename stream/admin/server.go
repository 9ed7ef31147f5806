package admin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// Server is the admin HTTP server and the goroutine serving it, which it
// owns: Start starts the goroutine, Stop ends it and waits for it.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	err  error // Serve's failure (not a shutdown), written before done is closed
}

// Listen listens on addr (host:port) and serves h there until Stop.
func Listen(addr string, h http.Handler, log *zap.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("admin.listen %s: %w", addr, err)
	}
	s := Start(ln, h, log)
	log.Info("admin listening", zap.String("addr", ln.Addr().String()))
	return s, nil
}

// Start serves h on ln until Stop.
func Start(ln net.Listener, h http.Handler, log *zap.Logger) *Server {
	s := &Server{srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}, ln: ln, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin server", zap.Error(err))
			s.err = fmt.Errorf("admin server: %w", err)
		}
	}()
	return s
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stop closes the listener, gives requests in flight up to timeout, and
// returns once the serving goroutine has: with the shutdown's error and the
// server's own, if it failed while serving.
func (s *Server) Stop(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	return errors.Join(err, s.err)
}
