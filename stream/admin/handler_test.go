package admin

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zaptest"
)

type fakeStore struct{}

func (fakeStore) Backup(w io.Writer) (uint64, error) {
	_, err := io.WriteString(w, "backup")
	return 1, err
}

func TestHandler(t *testing.T) {
	f := func(o Options, method, path string, wantCode int, wantBody string) {
		t.Helper()
		o.Registry, o.Logger = prometheus.NewRegistry(), zaptest.NewLogger(t)
		if o.Ready == nil {
			o.Ready = func() error { return nil }
		}
		w := httptest.NewRecorder()
		Handler(o).ServeHTTP(w, httptest.NewRequest(method, path, nil))
		if w.Code != wantCode || !strings.Contains(w.Body.String(), wantBody) {
			t.Errorf("%s %s: %d %q, want %d with %q", method, path, w.Code, w.Body.String(), wantCode, wantBody)
		}
	}
	f(Options{}, "GET", "/livez", 200, "ok")
	f(Options{}, "GET", "/readyz", 200, "ok")
	f(Options{Ready: func() error { return errors.New("stuck") }}, "GET", "/readyz", 503, "not ready: stuck")
	f(Options{Store: fakeStore{}}, "GET", "/debug/state/backup", 403, BackupOff)
	f(Options{Backup: true, Store: fakeStore{}}, "POST", "/debug/state/backup", 405, "GET only")
	f(Options{Backup: true}, "GET", "/debug/state/backup", 404, "state collect")
	f(Options{Backup: true, Store: fakeStore{}}, "GET", "/debug/state/backup", 200, "backup")
}

func TestConfig(t *testing.T) {
	var c Config
	c.EnsureDefaults()
	if c.Listen != "" || c.StateInterval <= 0 || c.StallAfter <= 0 || c.Validate() != nil {
		t.Errorf("defaults: %+v, %v", c, c.Validate())
	}
	c.StallAfter, c.StateInterval = -1, -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "admin.stall_after") || !strings.Contains(err.Error(), "admin.state_interval") {
		t.Errorf("negative durations: %v", err)
	}
}
