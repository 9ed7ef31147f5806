package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// app is a running filter: state, pipeline and admin server, wired from Config.
type app struct {
	cfg    Config
	log    *zap.Logger
	method lsh.Method
	store  *state.Store
	pipe   *stream.Pipeline
	admin  *http.Server
	ln     net.Listener
	reg    *prometheus.Registry
	gauges *stateGauges
}

// newApp opens state and builds the pipeline. cfg must be defaulted and valid.
func newApp(cfg Config, log *zap.Logger, opts ...appOption) (*app, error) {
	method, err := cfg.newMethod()
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(buildInfo(method.Version()))
	sec, err := kafkaSecurity(cfg.Kafka)
	if err != nil {
		return nil, err
	}
	so := cfg.State.ForMethod(method)
	so.Logger = log.Named("state")
	store, err := state.Open(so)
	if err != nil {
		return nil, err
	}
	deps := stream.Deps{
		Logger:      log.Named("stream"),
		Cleaner:     clean.New(cfg.Clean),
		Method:      method,
		Index:       store,
		Registry:    reg,
		Containment: cfg.Sketch.Containment,
		Security:    sec,
	}
	for _, o := range opts {
		o(&deps)
	}
	pipe, err := stream.New(cfg.Config, deps)
	if err != nil {
		return nil, errors.Join(err, store.Close())
	}
	a := &app{cfg: cfg, log: log, method: method, store: store, pipe: pipe, reg: reg}
	a.gauges = startStateGauges(reg, store, cfg.Admin.StateInterval, a.sampleLag)
	if cfg.Admin.Listen != "" {
		if err := a.listenAdmin(reg); err != nil {
			return nil, errors.Join(err, a.close())
		}
	}
	return a, nil
}

func (a *app) listenAdmin(reg *prometheus.Registry) error {
	ln, err := net.Listen("tcp", a.cfg.Admin.Listen)
	if err != nil {
		return fmt.Errorf("admin.listen %s: %w", a.cfg.Admin.Listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !a.pipe.Ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/debug/state/backup", a.serveBackup)
	a.ln = ln
	a.admin = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	return nil
}

// backupOff is what /debug/state/backup answers while admin.backup is off;
// "dedupstream state backup --from" shows it to the operator.
const backupOff = "state backup is off on this filter: start it with admin.backup: true (DEDUPSTREAM_ADMIN_BACKUP=true) to serve /debug/state/backup"

// serveBackup streams a consistent backup of the running filter's state, for
// "dedupstream state backup --from": Badger lets one process open a directory.
// It hands out every stored page's id, URL and sketch, so it answers 403
// unless admin.backup is set.
func (a *app) serveBackup(w http.ResponseWriter, r *http.Request) {
	if !a.cfg.Admin.Backup {
		http.Error(w, backupOff, http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := a.store.Backup(w); err != nil {
		a.log.Error("state backup", zap.Error(err)) // headers are sent; the client sees a short body
	}
}

// run serves the admin port and runs the pipeline until ctx is cancelled and
// the batch in hand is drained.
func (a *app) run(ctx context.Context) error {
	if a.admin != nil {
		go func() {
			if err := a.admin.Serve(a.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				a.log.Error("admin server", zap.Error(err))
			}
		}()
		a.log.Info("admin listening", zap.String("addr", a.ln.Addr().String()))
	}
	a.log.Info("consuming", zap.Strings("brokers", a.cfg.Kafka.Brokers), zap.String("input", a.cfg.Kafka.Input),
		zap.String("output", a.cfg.Kafka.Output), zap.String("mode", a.cfg.Mode.String()),
		zap.String("sketch", a.method.Version()), zap.Float64("threshold", a.cfg.Sketch.Params.Threshold),
		zap.Bool("tls", a.cfg.Kafka.TLS.Enabled), zap.String("sasl", a.cfg.Kafka.SASL.Mechanism), zap.String("sasl_user", a.cfg.Kafka.SASL.Username))
	if a.cfg.Kafka.TLS.InsecureSkipVerify {
		a.log.Warn("kafka.tls.insecure_skip_verify is set: broker certificates are not checked")
	}
	if err := a.pipe.CheckBrokers(ctx); err != nil {
		return err
	}
	return a.pipe.Run(ctx)
}

// sampleLag refreshes the consumer-lag gauge from the brokers; it runs on
// the state-sampling ticker, so the lag keeps growing while nothing commits.
func (a *app) sampleLag() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.pipe.SampleLag(ctx); err != nil {
		a.log.Debug("consumer lag not sampled", zap.Error(err))
	}
}

// close stops in order: pipeline (leave the group, flush), state, admin.
func (a *app) close() error {
	var errs []error
	if a.gauges != nil { // first: its sampling uses the pipeline and the store
		a.gauges.close()
	}
	if a.pipe != nil {
		errs = append(errs, a.pipe.Close())
	}
	if a.store != nil {
		errs = append(errs, a.store.Close())
	}
	if a.admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		errs = append(errs, a.admin.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
