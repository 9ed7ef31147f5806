package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// adminServer is the admin HTTP server and the goroutine serving it, which
// it owns: startAdmin starts the goroutine, stop ends it and waits for it.
type adminServer struct {
	srv  *http.Server
	done chan struct{}
	err  error // Serve's failure (not a shutdown), written before done is closed
}

// startAdmin serves h on ln until stop.
func startAdmin(ln net.Listener, h http.Handler, log *zap.Logger) *adminServer {
	s := &adminServer{srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin server", zap.Error(err))
			s.err = fmt.Errorf("admin server: %w", err)
		}
	}()
	return s
}

// stop closes the listener, gives requests in flight up to timeout, and
// returns once the serving goroutine has: with the shutdown's error and the
// server's own, if it failed while serving.
func (s *adminServer) stop(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	return errors.Join(err, s.err)
}
