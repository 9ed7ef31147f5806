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
	"github.com/dedupstream/dedupstream/stream/shard"
)

// app is a running filter: state, pipeline and admin server, wired from Config.
type app struct {
	cfg    Config
	log    *zap.Logger
	method lsh.Method
	store  *state.Store  // single-instance mode
	front  *shard.Front  // sharded mode: the pipeline's index
	shards *shard.Server // sharded mode: the shards this instance owns
	pipe   *stream.Pipeline
	admin  *adminServer // nil without admin.listen
	ln     net.Listener // the admin server's
	reg    *prometheus.Registry
	gauges *stream.StateGauges
	// unlimit puts back the soft memory limit newApp replaced (setMemoryLimit).
	unlimit func()
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
	if err := stream.CheckKafka(&cfg.Config, sec, cfg.Index.Shards > 0, log.Named("stream")); err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, method: method, reg: reg, unlimit: func() {}}
	deps := stream.Deps{
		Logger:      log.Named("stream"),
		Cleaner:     clean.New(cfg.Clean),
		Method:      method,
		Registry:    reg,
		Containment: cfg.Sketch.ContainmentThreshold(),
		Security:    sec,
		InFlight:    cfg.Index.InFlight,
		ReorderIdle: cfg.Index.ReorderIdle,
		StallAfter:  cfg.Admin.StallAfter,
	}
	if err := a.openIndex(&deps); err != nil {
		return nil, err
	}
	var stats func() state.Stats
	if a.store != nil {
		stats = a.store.Stats
	} else {
		stats = a.shards.Stats // the shard stores open here
	}
	// Set once the state is open, so that the limit counts the postings
	// index Open loaded; under a limit that left it out, the collector
	// would run back to back through the load of a large state.
	a.unlimit = setMemoryLimit(&cfg, stats(), log)
	for _, o := range opts {
		o(&deps)
	}
	pipe, err := stream.New(cfg.Config, deps)
	if err != nil {
		return nil, errors.Join(err, a.close())
	}
	a.pipe = pipe
	a.gauges = stream.StartStateGauges(reg, followState(&cfg, stats, log), cfg.Admin.StateInterval, a.sampleLag)
	if cfg.Admin.Listen != "" {
		if err := a.serveAdmin(reg); err != nil {
			return nil, errors.Join(err, a.close())
		}
	}
	return a, nil
}

// openIndex opens the single-instance state, or in sharded mode the front
// and the shard server (shard.Open).
func (a *app) openIndex(deps *stream.Deps) error {
	cfg := a.cfg
	if cfg.Index.Shards == 0 {
		so := cfg.State.ForMethod(a.method)
		so.Logger = a.log.Named("state")
		store, err := state.Open(so)
		if err != nil {
			return err
		}
		a.store, deps.Index = store, store
		return nil
	}
	var err error
	a.front, a.shards, err = shard.Open(cfg.Index, shard.ServerOptions{
		Kafka: cfg.Kafka, Batch: cfg.Batch, Security: deps.Security, Method: a.method, Containment: cfg.Sketch.ContainmentThreshold(),
		State: cfg.State, Logger: a.log.Named("shard"), Registry: a.reg,
	})
	if err != nil {
		return err
	}
	deps.Sharded = a.front
	return nil
}

// ready is /readyz: nil while the pipeline consumes and makes progress and,
// in sharded mode, every owned shard serves; else why not.
func (a *app) ready() error {
	switch {
	case !a.pipe.Ready():
		return errors.New("not consuming: not a member of the consumer group, or stopping")
	case a.shards != nil && !a.shards.Ready():
		return errors.New("index shards not serving: joining the index group, or rebuilding a shard")
	}
	return a.pipe.Health()
}

// serveAdmin starts the admin server on admin.listen; close stops it.
func (a *app) serveAdmin(reg *prometheus.Registry) error {
	ln, err := net.Listen("tcp", a.cfg.Admin.Listen)
	if err != nil {
		return fmt.Errorf("admin.listen %s: %w", a.cfg.Admin.Listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := a.ready(); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/debug/state/backup", a.serveBackup)
	a.ln = ln
	a.admin = startAdmin(ln, mux, a.log)
	a.log.Info("admin listening", zap.String("addr", ln.Addr().String()))
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
	if a.store == nil {
		http.Error(w, "a sharded filter has no single state to back up: its whole index is in the sequence log; 'dedupstream state collect' (with the filter's configuration and a new --state directory) reads it into one state directory, which 'state backup --state' then backs up", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := a.store.Backup(w); err != nil {
		a.log.Error("state backup", zap.Error(err)) // headers are sent; the client sees a short body
	}
}

// run runs the pipeline until ctx is cancelled and the batch in hand is
// drained; the admin server, started by newApp, serves meanwhile.
func (a *app) run(ctx context.Context) error {
	a.log.Info("consuming", zap.Strings("brokers", a.cfg.Kafka.Brokers), zap.String("input", a.cfg.Kafka.Input),
		zap.String("output", a.cfg.Kafka.Output), zap.String("mode", a.cfg.Mode.String()),
		zap.String("sketch", a.method.Version()), zap.Float64("threshold", a.cfg.Sketch.Params.Threshold),
		zap.Bool("tls", a.cfg.Kafka.TLS.Enabled), zap.String("sasl", a.cfg.Kafka.SASL.Mechanism), zap.String("sasl_user", a.cfg.Kafka.SASL.Username))
	if a.cfg.Kafka.TLS.InsecureSkipVerify {
		a.log.Warn("kafka.tls.insecure_skip_verify is set: broker certificates are not checked")
	}
	if a.cfg.State.FilterKeys != 0 {
		a.log.Warn("state.filter_keys is ignored: states of format 5 keep no key filter (their replay postings are in memory)")
	}
	if a.shards == nil {
		return a.pipe.Run(ctx)
	}
	// The shards keep answering while the pipeline drains (its own last
	// batches wait for them), then leave the index group.
	serve, stop := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- a.shards.Run(serve) }()
	err := a.pipe.Run(ctx)
	stop()
	return errors.Join(err, <-served)
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

// close stops in order: pipeline (leave the group, flush), state, admin
// server (waiting for its goroutine). A running pipeline must have been
// stopped first (its Run returned).
func (a *app) close() error {
	var errs []error
	if a.gauges != nil { // first: its sampling uses the pipeline and the store
		a.gauges.Close()
	}
	if a.pipe != nil {
		errs = append(errs, a.pipe.Close())
	}
	if a.front != nil {
		errs = append(errs, a.front.Close(), a.shards.Close())
	}
	if a.store != nil {
		errs = append(errs, a.store.Close())
	}
	if a.admin != nil {
		errs = append(errs, a.admin.stop(5*time.Second))
	}
	a.unlimit()
	return errors.Join(errs...)
}
