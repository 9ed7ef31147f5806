package stream

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/state"
)

// Deps are the pipeline's collaborators, built and owned by the caller.
type Deps struct {
	Logger   *zap.Logger           // nil: no logs
	Cleaner  *clean.Cleaner        // required
	Sketcher *lsh.Sketcher         // required
	Index    Index                 // required
	Registry prometheus.Registerer // nil: metrics are kept but not registered
}

// Pipeline consumes the input topic and emits verdicts. Run it from one goroutine.
type Pipeline struct {
	cfg    Config
	log    *zap.Logger
	index  Index
	prep   preparer
	dec    decider
	route  router
	reader *kafka.Reader
	writer *kafka.Writer
	m      *metrics
	pool   sync.Pool

	running atomic.Bool // Run is fetching (not stopped, not draining)
	mu      sync.Mutex
	counts  Counts

	// passthrough forwards records unchanged with no decision: the baseline
	// that benchmarks compare the filter with.
	passthrough bool

	// crash, when set by tests, is called after each stage of a batch; an error
	// aborts Run there, as a crash would.
	crash func(stage string) error
}

// Counts are running totals since the pipeline was created.
type Counts struct {
	Records        int64 // input records processed
	Unique         int64
	NearDuplicate  int64
	ExactDuplicate int64
	Contained      int64
	Invalid        int64
	Forwarded      int64 // written to the output topic
	ToDuplicates   int64 // written to the duplicates topic
	Dropped        int64 // duplicates dropped with no duplicates topic
	Replayed       int64 // redelivered records that kept their stored verdict
	Batches        int64
}

// New builds a pipeline. cfg must be defaulted and valid.
func New(cfg Config, d Deps) (*Pipeline, error) {
	if d.Cleaner == nil || d.Sketcher == nil || d.Index == nil {
		return nil, errors.New("stream: Cleaner, Sketcher and Index are required")
	}
	if d.Logger == nil {
		d.Logger = zap.NewNop()
	}
	p := &Pipeline{
		cfg:   cfg,
		log:   d.Logger,
		index: d.Index,
		prep:  preparer{dec: decoder{cfg: cfg.Decode}, cleaner: d.Cleaner, sketch: d.Sketcher},
		route: router{kafka: cfg.Kafka, maxVal: cfg.Decode.MaxMessageBytes, mode: cfg.Mode, version: d.Sketcher.Params().Version()},
		m:     newMetrics(d.Registry),
	}
	p.dec = decider{index: d.Index, threshold: d.Sketcher.Params().Threshold, stats: &decideStats{}}
	p.pool.New = func() any { return new(scratch) }
	p.reader = newReader(cfg, p.log)
	p.writer = newWriter(cfg, p.log)
	return p, nil
}

// NewPassthrough builds a pipeline that consumes, forwards every record
// unchanged to the output topic and commits — the same reader, writer, batching
// and commit order as the filter, with no decode, sketch or state. It exists to
// measure the filter's overhead.
func NewPassthrough(cfg Config, log *zap.Logger) *Pipeline {
	if log == nil {
		log = zap.NewNop()
	}
	p := &Pipeline{cfg: cfg, log: log, m: newMetrics(nil), passthrough: true}
	p.reader = newReader(cfg, log)
	p.writer = newWriter(cfg, log)
	return p
}

// Ready reports whether the pipeline is consuming (not yet stopped or draining).
func (p *Pipeline) Ready() bool { return p.running.Load() }

// Counts returns a snapshot of the running totals.
func (p *Pipeline) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// Run consumes until ctx is cancelled or a non-retryable error occurs. When ctx
// is cancelled it stops fetching and finishes the batch in hand — emit, store,
// commit — giving that work up to shutdown_timeout.
func (p *Pipeline) Run(ctx context.Context) error {
	drain, stop := drainContext(ctx, p.cfg.ShutdownTimeout)
	defer stop()
	p.running.Store(true)
	defer p.running.Store(false)
	for ctx.Err() == nil {
		msgs, err := p.fetch(ctx)
		if len(msgs) > 0 {
			if ctx.Err() != nil {
				p.running.Store(false)
			}
			if perr := p.process(drain, msgs); perr != nil {
				return perr
			}
		}
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("fetch from %s: %w", p.cfg.Kafka.Input, err)
		}
	}
	return nil
}

// Close closes the Kafka reader and writer. The index is the caller's to close.
func (p *Pipeline) Close() error {
	return errors.Join(p.reader.Close(), p.writer.Close())
}

// fetch waits for one record, then gathers more for up to batch.linger.
func (p *Pipeline) fetch(ctx context.Context) ([]kafka.Message, error) {
	first, err := p.reader.FetchMessage(ctx)
	if err != nil {
		return nil, err
	}
	msgs := make([]kafka.Message, 1, p.cfg.Batch.Size)
	msgs[0] = first
	linger, cancel := context.WithTimeout(ctx, p.cfg.Batch.Linger)
	defer cancel()
	for len(msgs) < p.cfg.Batch.Size {
		m, err := p.reader.FetchMessage(linger)
		if err != nil {
			break // linger over, or ctx cancelled: process what we have
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// process takes one batch through decide → stage → emit → publish → commit.
// A crash after any step replays the batch: staged records give replayed
// records their first verdicts, and publishing again is harmless.
func (p *Pipeline) process(ctx context.Context, msgs []kafka.Message) error {
	if p.passthrough {
		return p.forward(ctx, msgs)
	}
	start := time.Now()
	items := p.prep.prepareAll(msgs, p.workers(), &p.pool)
	start = p.observe("prepare", start)
	dec, err := p.dec.decideBatch(items)
	if err != nil {
		return err
	}
	start = p.observe("decide", start)
	if err := p.step("decided"); err != nil {
		return err
	}
	if err := p.index.Stage(dec.stage); err != nil {
		return fmt.Errorf("stage %d documents: %w", len(dec.stage), err)
	}
	start = p.observe("stage", start)
	if err := p.step("staged"); err != nil {
		return err
	}
	if err := p.emit(ctx, msgs, dec.outs); err != nil {
		return err
	}
	start = p.observe("emit", start)
	if err := p.step("emitted"); err != nil {
		return err
	}
	if err := p.index.Publish(dec.publish); err != nil {
		return fmt.Errorf("publish %d documents: %w", len(dec.publish), err)
	}
	start = p.observe("publish", start)
	if err := p.step("published"); err != nil {
		return err
	}
	p.commit(ctx, msgs)
	p.observe("commit", start)
	p.tally(items, dec.outs)
	return p.step("committed")
}

// forward is process for a passthrough pipeline: emit unchanged, then commit.
func (p *Pipeline) forward(ctx context.Context, msgs []kafka.Message) error {
	out := make([]kafka.Message, len(msgs))
	for i, m := range msgs {
		out[i] = kafka.Message{Topic: p.cfg.Kafka.Output, Key: m.Key, Value: m.Value, Headers: m.Headers, Time: m.Time}
	}
	if err := p.write(ctx, out); err != nil {
		return err
	}
	p.commit(ctx, msgs)
	p.mu.Lock()
	p.counts.Records += int64(len(msgs))
	p.counts.Forwarded += int64(len(msgs))
	p.counts.Batches++
	p.mu.Unlock()
	return nil
}

func (p *Pipeline) workers() int {
	if p.cfg.Batch.Workers > 0 {
		return p.cfg.Batch.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (p *Pipeline) observe(stage string, since time.Time) time.Time {
	now := time.Now()
	p.m.stage.WithLabelValues(stage).Observe(now.Sub(since).Seconds())
	return now
}

func (p *Pipeline) step(stage string) error {
	if p.crash == nil {
		return nil
	}
	return p.crash(stage)
}

// drainContext returns a context that outlives ctx by grace, so work already
// fetched can finish after a stop is requested.
func drainContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	drain, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return drain, func() { stop(); cancel() }
}

var _ Index = (*state.Store)(nil)
