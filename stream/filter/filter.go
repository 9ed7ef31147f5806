package filter

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/admin"
	"github.com/dedupstream/dedupstream/stream/shard"
)

// Process is what a filter takes from the process that runs it rather than
// from its configuration.
type Process struct {
	Version string // the build's version, a label of dedupstream_build_info
	// ReadFile reads the files kafka.tls and kafka.sasl name (os.ReadFile).
	ReadFile func(name string) ([]byte, error)
	// GoMemLimit says GOMEMLIMIT is set: the runtime has applied it, so an
	// automatic memory_limit sets none.
	GoMemLimit bool
}

// Option adjusts the pipeline's collaborators before New builds it.
type Option func(*stream.Deps)

// Filter is a running filter: state, pipeline and admin server, wired from
// Config.
type Filter struct {
	cfg    Config
	log    *zap.Logger
	method lsh.Method
	store  *state.Store  // single-instance mode
	front  *shard.Front  // sharded mode: the pipeline's index
	shards *shard.Server // sharded mode: the shards this instance owns
	pipe   *stream.Pipeline
	admin  *admin.Server // nil without admin.listen
	reg    *prometheus.Registry
	gauges *stream.StateGauges
	// unlimit puts back the soft memory limit New replaced (setMemoryLimit).
	unlimit func()
}

// New opens state and builds the pipeline. cfg must be defaulted and valid.
func New(cfg Config, p Process, log *zap.Logger, opts ...Option) (*Filter, error) {
	method, err := cfg.NewMethod()
	if err != nil {
		return nil, err
	}
	reg := admin.NewRegistry(p.Version, method.Version())
	sec, err := stream.NewSecurity(cfg.Kafka, p.ReadFile)
	if err != nil {
		return nil, err
	}
	if err := stream.CheckKafka(&cfg.Config, sec, cfg.Index.Shards > 0, log.Named("stream")); err != nil {
		return nil, err
	}
	f := &Filter{cfg: cfg, log: log, method: method, reg: reg, unlimit: func() {}}
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
	if err := f.openIndex(&deps); err != nil {
		return nil, err
	}
	var stats func() state.Stats
	if f.store != nil {
		stats = f.store.Stats
	} else {
		stats = f.shards.Stats // the shard stores open here
	}
	// Set once the state is open, so that the limit counts the postings
	// index Open loaded; under a limit that left it out, the collector
	// would run back to back through the load of a large state.
	f.unlimit = setMemoryLimit(&cfg, p.GoMemLimit, stats(), log)
	for _, o := range opts {
		o(&deps)
	}
	pipe, err := stream.New(cfg.Config, deps)
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	f.pipe = pipe
	f.gauges = stream.StartStateGauges(reg, followState(&cfg, p.GoMemLimit, stats, log), cfg.Admin.StateInterval, f.sampleLag)
	if cfg.Admin.Listen != "" {
		h := admin.Handler(admin.Options{Registry: reg, Ready: f.Ready, Backup: cfg.Admin.Backup, Store: f.backupStore(), Logger: log})
		if f.admin, err = admin.Listen(cfg.Admin.Listen, h, log); err != nil {
			return nil, errors.Join(err, f.Close())
		}
	}
	return f, nil
}

// openIndex opens the single-instance state, or in sharded mode the front
// and the shard server (shard.Open).
func (f *Filter) openIndex(deps *stream.Deps) error {
	cfg := f.cfg
	if cfg.Index.Shards == 0 {
		so := cfg.State.ForMethod(f.method)
		so.Logger = f.log.Named("state")
		store, err := state.Open(so)
		if err != nil {
			return err
		}
		f.store, deps.Index = store, store
		return nil
	}
	var err error
	f.front, f.shards, err = shard.Open(cfg.Index, shard.ServerOptions{
		Kafka: cfg.Kafka, Batch: cfg.Batch, Security: deps.Security, Method: f.method, Containment: cfg.Sketch.ContainmentThreshold(),
		State: cfg.State, Logger: f.log.Named("shard"), Registry: f.reg,
	})
	if err != nil {
		return err
	}
	deps.Sharded = f.front
	return nil
}

// Ready is /readyz: nil while the pipeline consumes and makes progress and,
// in sharded mode, every owned shard serves; else why not.
func (f *Filter) Ready() error {
	switch {
	case !f.pipe.Ready():
		return errors.New("not consuming: not a member of the consumer group, or stopping")
	case f.shards != nil && !f.shards.Ready():
		return errors.New("index shards not serving: joining the index group, or rebuilding a shard")
	}
	return f.pipe.Health()
}

// backupStore is what /debug/state/backup backs up: the single-instance
// state; none in sharded mode.
func (f *Filter) backupStore() admin.Backuper {
	if f.store == nil {
		return nil
	}
	return f.store
}

// Run runs the pipeline until ctx is cancelled and the batch in hand is
// drained; the admin server, started by New, serves meanwhile.
func (f *Filter) Run(ctx context.Context) error {
	k := f.cfg.Kafka
	f.log.Info("consuming", zap.Strings("brokers", k.Brokers), zap.String("input", k.Input),
		zap.String("output", k.Output), zap.String("mode", f.cfg.Mode.String()),
		zap.String("sketch", f.method.Version()), zap.Float64("threshold", f.cfg.Sketch.Params.Threshold),
		zap.Bool("tls", k.TLS.Enabled), zap.String("sasl", k.SASL.Mechanism), zap.String("sasl_user", k.SASL.Username))
	if k.TLS.InsecureSkipVerify {
		f.log.Warn("kafka.tls.insecure_skip_verify is set: broker certificates are not checked")
	}
	if f.cfg.State.FilterKeys != 0 {
		f.log.Warn("state.filter_keys is ignored: states of format 5 keep no key filter (their replay postings are in memory)")
	}
	if f.shards == nil {
		return f.pipe.Run(ctx)
	}
	// The shards keep answering while the pipeline drains (its own last
	// batches wait for them), then leave the index group.
	serve, stop := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- f.shards.Run(serve) }()
	err := f.pipe.Run(ctx)
	stop()
	return errors.Join(err, <-served)
}

// sampleLag refreshes the consumer-lag gauge from the brokers; it runs on
// the state-sampling ticker, so the lag keeps growing while nothing commits.
func (f *Filter) sampleLag() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.pipe.SampleLag(ctx); err != nil {
		f.log.Debug("consumer lag not sampled", zap.Error(err))
	}
}

// Close stops in order: pipeline (leave the group, flush), state, admin
// server (waiting for its goroutine). A running pipeline must have been
// stopped first (its Run returned).
func (f *Filter) Close() error {
	var errs []error
	if f.gauges != nil { // first: its sampling uses the pipeline and the store
		f.gauges.Close()
	}
	if f.pipe != nil {
		errs = append(errs, f.pipe.Close())
	}
	if f.front != nil {
		errs = append(errs, f.front.Close(), f.shards.Close())
	}
	if f.store != nil {
		errs = append(errs, f.store.Close())
	}
	if f.admin != nil {
		errs = append(errs, f.admin.Stop(5*time.Second))
	}
	f.unlimit()
	return errors.Join(errs...)
}

// Counts are the pipeline's running totals.
func (f *Filter) Counts() stream.Counts { return f.pipe.Counts() }

// Pipeline is the filter's pipeline.
func (f *Filter) Pipeline() *stream.Pipeline { return f.pipe }

// Store is the single-instance state; nil in sharded mode.
func (f *Filter) Store() *state.Store { return f.store }

// Registry holds the filter's metrics, which the admin port serves.
func (f *Filter) Registry() *prometheus.Registry { return f.reg }

// Method is the sketch method the filter was built with.
func (f *Filter) Method() lsh.Method { return f.method }

// AdminAddr is where the admin port listens; nil without admin.listen.
func (f *Filter) AdminAddr() net.Addr {
	if f.admin == nil {
		return nil
	}
	return f.admin.Addr()
}
