package admin

import (
	"fmt"
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Backuper writes a consistent backup of a state (state.Store's Backup).
type Backuper interface {
	Backup(w io.Writer) (uint64, error)
}

// Options are what the handler serves.
type Options struct {
	Registry *prometheus.Registry // /metrics
	// Ready answers /readyz: nil while the filter is ready, else why not.
	Ready func() error
	// Backup serves /debug/state/backup (admin.backup); off, it answers 403
	// with BackupOff.
	Backup bool
	// Store is the state /debug/state/backup backs up; nil for a sharded
	// filter, which has no single state.
	Store  Backuper
	Logger *zap.Logger
}

// Handler serves /metrics, /livez, /readyz and /debug/state/backup.
func Handler(o Options) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{Registry: o.Registry}))
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := o.Ready(); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/debug/state/backup", o.serveBackup)
	return mux
}

// BackupOff is what /debug/state/backup answers while admin.backup is off;
// "dedupstream state backup --from" shows it to the operator.
const BackupOff = "state backup is off on this filter: start it with admin.backup: true (DEDUPSTREAM_ADMIN_BACKUP=true) to serve /debug/state/backup"

// serveBackup streams a consistent backup of the running filter's state, for
// "dedupstream state backup --from": Badger lets one process open a directory.
// It hands out every stored page's id, URL and sketch, so it answers 403
// unless o.Backup is set.
func (o Options) serveBackup(w http.ResponseWriter, r *http.Request) {
	if !o.Backup {
		http.Error(w, BackupOff, http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	if o.Store == nil {
		http.Error(w, "a sharded filter has no single state to back up: its whole index is in the sequence log; 'dedupstream state collect' (with the filter's configuration and a new --state directory) reads it into one state directory, which 'state backup --state' then backs up", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := o.Store.Backup(w); err != nil {
		o.Logger.Error("state backup", zap.Error(err)) // headers are sent; the client sees a short body
	}
}
