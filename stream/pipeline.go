package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// Deps are the pipeline's collaborators, built and owned by the caller.
type Deps struct {
	Logger  *zap.Logger    // nil: no logs
	Cleaner *clean.Cleaner // required
	Method  lsh.Method     // required: sketches, index keys and their comparison
	// Index is the single-instance index; its postings must be keyed as
	// Method.KeyBands says. Exactly one of Index and Sharded is required.
	Index Index
	// Sharded is the band-sharded index of a filter spread over instances
	// (stream/shard.Front); the pipeline is then its front.
	Sharded Sharded
	// InFlight bounds the batches whose probes are out while their answers
	// are awaited, in sharded mode; 0 means 4.
	InFlight int
	// ReorderIdle is how long a sharded front holds a record back waiting
	// for the other input partitions to catch up with its timestamp (see
	// reorder); 0 means 250ms.
	ReorderIdle time.Duration
	Registry    prometheus.Registerer // nil: metrics are kept but not registered
	// Containment is the least estimated containment (lsh.Estimate.AinB) of
	// a new document in an earlier one that makes it Contained, when the
	// Method estimates containment; 0 disables the verdict.
	Containment float64
	// AfterStage, if set, is called after each stage of a batch (BatchStages,
	// in order: fetched, decided, staged, emitted, published, committed) with the
	// batch's number within Run, from the goroutine running that stage. An
	// error aborts Run there, as a crash would. It exists for fault injection.
	AfterStage func(stage string, batch int) error
	// Timed, if set, is given each batch's BatchTimes once its output is
	// acknowledged, from the goroutine that emits; it must return quickly.
	// A batch redelivered (its publish or commit failed) is reported again.
	// bench uses it to show where a latency tail is spent.
	Timed func(BatchTimes)
	// Security encrypts and authenticates the Kafka connections; zero: plaintext.
	Security Security
	// StallAfter is how long writes may fail, or an owned input partition
	// with records not committed stand still, before Health reports it; 0
	// means 30s.
	StallAfter time.Duration
}

// Pipeline consumes the input topic and emits verdicts. Run it from one goroutine.
type Pipeline struct {
	cfg       Config
	log       *zap.Logger
	index     Index
	prep      *prepare.Preparer
	dec       *Decider         // nil in sharded mode
	sharded   Sharded          // nil in single-instance mode
	inFlight  int              // Deps.InFlight
	order     *reorder         // sharded mode: records handed on in the global order
	workers   *prepare.Workers // the filter's prepare workers, while fetchLoop runs
	route     router
	reader    *kafka.Reader
	writer    *kafka.Writer
	sec       Security
	m         *metrics
	lagClient *kafka.Client // SampleLag's
	pool      sync.Pool

	running atomic.Bool // Run is fetching (not stopped, not draining)
	member  membership  // the reader is a member of the consumer group
	health  *health     // writes and input progress, for readiness
	waiting atomic.Bool // the stage after fetching waits for a batch (FetchBatch's idle)
	mu      sync.Mutex
	counts  Counts

	// stages are the work on each fetched batch: the filter's, or the
	// passthrough's (NewPassthrough).
	stages stages

	afterStage func(stage string, batch int) error // Deps.AfterStage
	timed      func(BatchTimes)                    // Deps.Timed
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
	if d.Cleaner == nil || d.Method == nil || (d.Index == nil) == (d.Sharded == nil) {
		return nil, errors.New("stream: Cleaner, Method and one of Index and Sharded are required")
	}
	if d.InFlight <= 0 {
		d.InFlight = 4
	}
	if d.ReorderIdle <= 0 {
		d.ReorderIdle = 250 * time.Millisecond
	}
	if d.Logger == nil {
		d.Logger = zap.NewNop()
	}
	p := &Pipeline{
		cfg:      cfg,
		log:      d.Logger,
		index:    d.Index,
		sharded:  d.Sharded,
		inFlight: d.InFlight,
		prep:     prepare.New(cfg.Decode, d.Cleaner, d.Method),
		route:    router{kafka: cfg.Kafka, maxVal: cfg.Decode.RecordLimit(), mode: cfg.Mode, version: d.Method.Version()},
		m:        newMetrics(d.Registry),
		sec:      d.Security,
		health:   newHealth(d.StallAfter),
	}
	if d.Index != nil {
		p.dec = newDecider(d.Index, d.Method, DeciderOptions{Containment: d.Containment}, p.m)
	} else {
		p.order = newReorder(d.ReorderIdle, 8*cfg.Batch.Size)
	}
	p.pool.New = func() any { return new(prepare.Scratch) }
	p.stages = p.filterStages()
	p.afterStage, p.timed = d.AfterStage, d.Timed
	p.clients(d.Security)
	return p, nil
}

// clients builds the pipeline's Kafka writer and lag client, neither of
// which connects until used. The reader is built by Run: a kafka-go reader of
// a consumer group starts joining the group as soon as it exists, and the
// group is joined only when Run starts.
func (p *Pipeline) clients(sec Security) {
	p.writer = newWriter(p.cfg, sec, p.log)
	p.lagClient = newLagClient(p.cfg, sec)
}

// Ready reports whether the pipeline is consuming: Run is fetching (not
// stopped, not draining) and the reader is a member of the consumer group
// (joined, partitions assigned, heartbeats answered — so not while the broker
// is unreachable).
func (p *Pipeline) Ready() bool { return p.running.Load() && p.member.joined.Load() }

// Counts returns a snapshot of the running totals.
func (p *Pipeline) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// Run consumes until ctx is cancelled or a non-retryable error occurs. When ctx
// is cancelled it stops fetching and finishes the batches in hand — decide,
// stage, emit, publish, commit — giving that work up to shutdown_timeout.
//
// Four goroutines, owned by Run, pass batches along in order: one fetches and
// prepares (decode, clean, sketch — on worker goroutines, each record as it
// arrives: fetchBatch), one decides and stages, one emits and waits for the
// broker's ack, and Run's own publishes and commits.
// Batch k+1 is decided while batch k is emitted, and emitted while k is
// published; the decider's overlays let it see k's documents meanwhile. In
// sharded mode a fifth, between fetching and deciding, sends each batch's
// probes to the shards; up to Deps.InFlight batches wait for their answers.
// A sixth samples the input's committed offsets for Health (watchProgress).
func (p *Pipeline) Run(ctx context.Context) error {
	if p.reader == nil {
		p.reader = newReader(p.cfg, p.sec, p.log, &p.member)
	}
	drain, stop := drainContext(ctx, p.cfg.ShutdownTimeout)
	defer stop()
	work, cancelWork := context.WithCancelCause(ctx) // stops fetching: shutdown, or an error
	abort := func() { cancelWork(errAborted) }
	defer abort()
	p.running.Store(true)
	defer p.running.Store(false)
	draining := context.AfterFunc(ctx, func() { p.running.Store(false) }) // not ready from the stop on
	defer draining()
	watch, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() { p.watchProgress(watch); close(watched) }()
	defer func() { stopWatch(); <-watched }()
	prepared, decided, emitted := make(chan batch, 1), make(chan batch, 1), make(chan batch, 1)
	fetchErr, askErr, decideErr, emitErr := make(chan error, 1), make(chan error, 1), make(chan error, 1), make(chan error, 1)
	loop := func(stage string, in <-chan batch, out chan<- batch, do func(*batch) error) error {
		return p.stageLoop(work, abort, stage, in, out, do, nil)
	}
	go func() { fetchErr <- p.fetchLoop(work, prepared) }()
	toDecide := prepared
	if p.sharded != nil {
		asked := make(chan batch, p.inFlight)
		go func() { askErr <- loop("ask", prepared, asked, p.ask(drain)) }()
		toDecide = asked
	} else {
		askErr <- nil
	}
	go func() {
		decideErr <- p.stageLoop(work, abort, "decide", toDecide, decided, p.stages.decide(drain), &p.waiting)
	}()
	go func() { emitErr <- loop("emit", decided, emitted, p.stages.emit(drain)) }()
	err := loop("publish", emitted, nil, p.stages.publish(drain))
	err = errors.Join(err, <-emitErr, <-decideErr, <-askErr, <-fetchErr)
	if err != nil && ctx.Err() != nil && drain.Err() != nil && onlyCancelled(err) {
		// A stop whose shutdown_timeout passed with batches in hand (say,
		// waiting for the answers of an index shard whose owner is down):
		// nothing of them was committed, and the partitions' next owners
		// read them again. Giving them up is the stop asked for, not a failure.
		p.log.Warn("shutdown_timeout passed with batches in hand; they were not committed and will be read again",
			zap.Duration("shutdown_timeout", p.cfg.ShutdownTimeout), zap.Error(err))
		return nil
	}
	return err
}

// onlyCancelled reports whether err, joined or wrapped, is cancellation and
// nothing else.
func onlyCancelled(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !onlyCancelled(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, errAborted)
}

// errAborted cancels fetching when a stage fails (as opposed to a shutdown,
// which lets the batches in hand finish).
var errAborted = errors.New("stream: aborted after an error")

// batch is a fetched batch as it moves through the pipeline.
type batch struct {
	n     int // batch number within this Run, from 1
	msgs  []kafka.Message
	prep  *prepare.Batch // its records being prepared, from fetch until the prepare stage
	pend  []*pending     // ordered mode: its records, prepared in the reorder buffer
	items []prepare.Item // prepared records (not in passthrough)
	asked Asked          // its lookups in the sharded index, once sent
	dec   decided        // decisions, once made
	times BatchTimes     // when it passed each stage, for Deps.Timed
}

// fetched reports whether fetchBatch found records: in msgs, or handed to
// the prepare workers.
func (b *batch) fetched() bool { return len(b.msgs) > 0 || b.prep != nil || len(b.pend) > 0 }

// decided is a batch's outcomes, one per record, and the Decider's part.
type decided struct {
	outs []outcome
	Decided
}

// stageLoop applies do to each batch from in, in order, and passes it on to
// out (if any). Once any stage has failed and aborted the run, it does no more
// work but keeps draining in, so the stages before it can finish; the records
// it skips were not committed and will be redelivered. If waiting is not nil,
// it is true while the loop waits for a batch. Each batch's work is a region
// "stage <stage>" in an execution trace (bench --trace).
func (p *Pipeline) stageLoop(work context.Context, abort func(), stage string, in <-chan batch, out chan<- batch, do func(*batch) error, waiting *atomic.Bool) error {
	if out != nil {
		defer close(out)
	}
	if waiting == nil {
		waiting = new(atomic.Bool)
	}
	region := "stage " + stage
	var err error
	for {
		waiting.Store(true)
		b, ok := <-in
		waiting.Store(false)
		if !ok {
			return err
		}
		if err != nil || context.Cause(work) == errAborted {
			continue
		}
		trace.WithRegion(work, region, func() { err = do(&b) })
		if err != nil {
			abort()
			continue
		}
		if out != nil {
			out <- b
		}
	}
}

// fetchLoop fetches and prepares batches until ctx ends, and closes out when
// it returns. A failed fetch (the broker gone, the group not joined) is
// retried with backoff: the reader reconnects and rejoins by itself.
func (p *Pipeline) fetchLoop(ctx context.Context, out chan<- batch) error {
	defer close(out)
	if p.stages.prepare != nil {
		stop := p.startPreparing()
		defer stop()
	}
	backoff := p.cfg.Batch.RetryBackoff
	for n := 1; ; {
		b, err := p.fetchBatch(ctx)
		if b.fetched() {
			b.n = n
			n++
			b.times.Gathered = time.Now()
			if p.stages.prepare != nil {
				trace.WithRegion(ctx, "stage prepare", func() { p.stages.prepare(&b) })
			}
			if err := p.step(AfterFetched, b.n); err != nil {
				return err
			}
			out <- b
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, io.EOF): // the reader is closed
			return fmt.Errorf("fetch from %s: %w", p.cfg.Kafka.Input, err)
		case err != nil:
			p.m.retries.WithLabelValues(retryFetch).Inc()
			p.log.Warn("fetch failed, retrying", zap.Duration("backoff", backoff), zap.Error(err))
			if !sleep(ctx, backoff) {
				return nil
			}
			backoff = min(2*backoff, 30*time.Second)
		default:
			backoff = p.cfg.Batch.RetryBackoff
		}
	}
}

// Close closes the Kafka reader and writer. The index is the caller's to close.
func (p *Pipeline) Close() error {
	p.lagClient.Transport.(*kafka.Transport).CloseIdleConnections()
	if p.reader == nil { // Run never ran
		return p.writer.Close()
	}
	return errors.Join(p.reader.Close(), p.writer.Close())
}

// fetchBatch fetches the next batch: in ordered mode by fetchOrdered,
// otherwise by FetchBatch's rule — one record, then more while the decider
// is busy, for up to batch.linger. Where the stages prepare records (the
// filter; the passthrough has none), each is handed to the prepare workers
// as it arrives (b.prep; in ordered mode as it enters the reorder buffer,
// b.pend), so that a batch is mostly prepared by the time it may go rather
// than only then: its prepare stage waits for the last records.
func (p *Pipeline) fetchBatch(ctx context.Context) (batch, error) {
	var b batch
	var err error
	switch {
	case p.order != nil:
		b.pend, err = p.fetchOrdered(ctx)
		for i, pm := range b.pend {
			if i == 0 || pm.arrived.Before(b.times.Fetched) {
				b.times.Fetched = pm.arrived
			}
		}
	case p.stages.prepare != nil:
		err = gatherBatch(ctx, p.reader, p.cfg.Batch, p.waiting.Load, func(m kafka.Message) int {
			if b.prep == nil {
				b.prep = p.workers.Batch(p.cfg.Batch.Size)
				b.times.Fetched = time.Now()
			}
			return b.prep.Add(m)
		})
	default:
		b.msgs, err = FetchBatch(ctx, p.reader, p.cfg.Batch, p.waiting.Load)
	}
	return b, err
}

// idleWindow is how long FetchBatch gathers at a time: with the next stage
// waiting, the records that arrive within it (and those already queued) make
// the batch; with it busy, FetchBatch looks again this often.
const idleWindow = time.Millisecond

// FetchBatch waits for one record from r, then gathers more, at most b.Size
// in all: the batching of the pipeline, and of a shard reading its sequence log.
// How long it gathers is linger's rule: up to b.Linger while idle (nil:
// never) reports false, the records that arrive within an idleWindow once it
// reports true.
func FetchBatch(ctx context.Context, r *kafka.Reader, b BatchConfig, idle func() bool) ([]kafka.Message, error) {
	var msgs []kafka.Message
	err := gatherBatch(ctx, r, b, idle, func(m kafka.Message) int {
		if msgs == nil {
			msgs = make([]kafka.Message, 0, b.Size)
		}
		msgs = append(msgs, m)
		return len(msgs)
	})
	return msgs, err
}

// gatherBatch is FetchBatch handing each record to add, which returns how
// many the batch holds, as it arrives.
func gatherBatch(ctx context.Context, r *kafka.Reader, b BatchConfig, idle func() bool, add func(kafka.Message) int) error {
	first, err := r.FetchMessage(ctx)
	if err != nil {
		return err
	}
	n := add(first)
	linger(ctx, b, idle, func(window context.Context) bool {
		return fetchInto(window, r, func() bool { return n >= b.Size }, func(m kafka.Message) { n = add(m) })
	})
	return nil
}

// fetchInto hands add the records r fetches until full reports true (it
// returns false) or window ends (true if it timed out, false if it was
// cancelled or the reader failed).
func fetchInto(window context.Context, r *kafka.Reader, full func() bool, add func(kafka.Message)) (timedOut bool) {
	for !full() {
		m, err := r.FetchMessage(window)
		if err != nil {
			return errors.Is(window.Err(), context.DeadlineExceeded)
		}
		add(m)
	}
	return false
}

// AlwaysIdle is the idle of a fetch whose caller does nothing else meanwhile (a
// shard reads, then applies, its sequence log): the next stage is always
// waiting, so a batch goes with what is queued and what arrives within an
// idleWindow. The records that came while the last batch was applied are
// queued, so under load the batches still fill.
func AlwaysIdle() bool { return true }

// linger is the batching rule of FetchBatch and fetchOrdered, once a batch
// has its first record. A fuller batch costs no latency while the work after
// it is busy, so it gathers for up to b.Linger while idle (nil: never)
// reports false; once idle reports true — the next stage waits for a batch —
// the batch goes with the records that arrive within an idleWindow.
// b.HoldWhenIdle keeps the whole linger regardless. gather adds records until
// its window ends (it reports true) or the batch is full or the reader failed
// (false, and the batch goes).
func linger(ctx context.Context, b BatchConfig, idle func() bool, gather func(window context.Context) (timedOut bool)) {
	if b.HoldWhenIdle {
		idle = nil
	}
	deadline := time.Now().Add(b.Linger)
	for {
		wait := time.Until(deadline)
		if wait <= 0 {
			return
		}
		waiting := false
		if idle != nil {
			waiting, wait = idle(), min(wait, idleWindow)
		}
		window, cancel := context.WithTimeout(ctx, wait)
		timedOut := gather(window)
		cancel()
		if waiting || !timedOut || ctx.Err() != nil {
			return // the next stage waits, the batch is full, the reader failed or ctx ended: process what we have
		}
	}
}

// ask sends a batch's probes to the shards of the sharded index.
func (p *Pipeline) ask(ctx context.Context) func(*batch) error {
	return func(b *batch) error {
		start := time.Now()
		asked, err := p.sharded.Ask(ctx, validDocs(b.items))
		if err != nil {
			return fmt.Errorf("ask the index shards: %w", err)
		}
		b.asked = asked
		p.observe(TimedAsk, start)
		return nil
	}
}

// stages are the work on each fetched batch, after the fetch: prepare (nil:
// none) runs in the fetching goroutine and waits for the preparation
// fetchBatch started record by record, the others each in their own (see
// Run). The filter has one set (filterStages), the passthrough another
// (passthroughStages).
type stages struct {
	prepare               func(*batch)
	decide, emit, publish func(ctx context.Context) func(*batch) error
}

func (p *Pipeline) filterStages() stages {
	return stages{prepare: p.prepareBatch, decide: p.decide, emit: p.emitBatch, publish: p.publishBatch}
}

// prepareBatch waits for the preparation — decode, clean, sketch, in
// parallel — that fetchBatch started record by record, and takes the items.
func (p *Pipeline) prepareBatch(b *batch) {
	start := time.Now()
	if p.order != nil {
		b.msgs, b.items = make([]kafka.Message, len(b.pend)), make([]prepare.Item, len(b.pend))
		for i, pm := range b.pend {
			pm.done.Wait()
			b.msgs[i], b.items[i] = pm.msg, pm.item
			b.items[i].Msg = &b.msgs[i]
		}
		b.pend = nil
	} else {
		b.msgs, b.items = b.prep.Wait()
		b.prep = nil
	}
	b.times.Prepared = p.observe(TimedPrepare, start)
}

// decide decides a batch and stages its new documents, so that whatever
// happens next, a replay finds the verdicts given here. In sharded mode the
// shards stored their answers when they gave them, and the batch is settled
// with them: a replay then joins the decisions emitted here, clusters
// included.
func (p *Pipeline) decide(ctx context.Context) func(*batch) error {
	return func(b *batch) error {
		start := time.Now()
		b.times.Deciding = start
		dec, err := p.decideItems(ctx, b)
		if err != nil {
			return err
		}
		b.dec = dec
		start = p.observe(TimedDecide, start)
		b.times.Decided, b.times.Staged = start, start
		if err := p.step(AfterDecided, b.n); err != nil {
			return err
		}
		if p.index != nil {
			if err := p.index.Stage(dec.Stage); err != nil {
				return fmt.Errorf("stage %d documents: %w", len(dec.Stage), err)
			}
			b.times.Staged = p.observe(TimedStage, start)
		}
		if p.sharded != nil {
			if err := b.asked.Settle(ctx); err != nil {
				return fmt.Errorf("settle verdicts with the index shards: %w", err)
			}
			b.times.Staged = p.observe(TimedStage, start)
		}
		return p.step(AfterStaged, b.n)
	}
}

// decideItems gives every record of b its outcome: the invalid ones Invalid,
// the others the Decider's or the shards' decision.
func (p *Pipeline) decideItems(ctx context.Context, b *batch) (decided, error) {
	var d decided
	var err error
	if p.sharded != nil {
		d.Decisions, err = b.asked.Wait(ctx)
	} else {
		d.Decided, err = p.dec.DecideBatch(validDocs(b.items))
	}
	if err != nil {
		return decided{}, err
	}
	d.outs = make([]outcome, len(b.items))
	j := 0
	for i := range b.items {
		if it := &b.items[i]; it.Err != nil {
			d.outs[i] = outcome{Decision: Decision{Verdict: Invalid}, err: it.Err}
			continue
		}
		d.outs[i] = outcome{Decision: d.Decisions[j], charset: b.items[i].Rec.CharsetHeader()}
		j++
	}
	if p.sharded != nil {
		d.Stats.Replayed = countReplayed(d.Decisions)
	}
	return d, nil
}

// validDocs returns the documents of the valid items, in order, as the
// Decider and the sharded index take them.
func validDocs(items []prepare.Item) []state.Doc {
	docs := make([]state.Doc, 0, len(items))
	for i := range items {
		it := &items[i]
		if it.Err != nil {
			continue
		}
		docs = append(docs, state.Doc{
			ID: it.Rec.ID, Source: prepare.SourceOf(it.Msg), URL: it.Rec.URL, Time: it.Msg.Time,
			ContentHash: it.Hash, Sketch: it.Sketch, Bands: it.Keys,
		})
	}
	return docs
}

func countReplayed(ds []Decision) int {
	n := 0
	for i := range ds {
		n += btoi(ds[i].Replayed)
	}
	return n
}

// emitBatch writes a decided batch's output and waits for the broker's ack.
func (p *Pipeline) emitBatch(ctx context.Context) func(*batch) error {
	return func(b *batch) error {
		start := time.Now()
		if err := p.emit(ctx, b.msgs, b.dec.outs); err != nil {
			return err
		}
		b.times.Emitting, b.times.Emitted = start, p.observe(TimedEmit, start)
		p.m.observeLatency(b.msgs, b.times.Emitted)
		if p.timed != nil {
			p.timed(b.times.withRecords(b.msgs))
		}
		return p.step(AfterEmitted, b.n)
	}
}

// publishBatch makes an emitted batch's documents findable, then commits its
// offsets. A crash after any step replays the batch: staged records give
// replayed records their first verdicts, and publishing again is harmless.
func (p *Pipeline) publishBatch(ctx context.Context) func(*batch) error {
	return func(b *batch) error {
		start := time.Now()
		if err := p.publish(ctx, b); err != nil {
			return err
		}
		start = p.observe(TimedPublish, start)
		if err := p.step(AfterPublished, b.n); err != nil {
			return err
		}
		p.commit(ctx, b.msgs)
		p.observe(TimedCommit, start)
		p.tally(b)
		return p.step(AfterCommitted, b.n)
	}
}

// publish makes an emitted batch's documents findable by later ones (in
// sharded mode the shards did when they stored them).
func (p *Pipeline) publish(ctx context.Context, b *batch) error {
	if p.sharded != nil {
		return nil
	}
	if err := p.index.Publish(b.dec.Publish); err != nil {
		return fmt.Errorf("publish %d documents: %w", len(b.dec.Publish), err)
	}
	p.dec.Retire(b.dec.Decided)
	return nil
}

// startPreparing starts the prepare workers for the run of fetchLoop
// (batch.workers of them; 0: GOMAXPROCS), and returns the function that
// stops them once every record handed to them is prepared: in ordered mode
// the records left in the reorder buffer are released in the next run, and
// must be prepared by then.
func (p *Pipeline) startPreparing() (stop func()) {
	n := p.cfg.Batch.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	// A batch holds at most batch.size records; the reorder buffer at most
	// its limit not yet released, and a released batch is prepared before
	// the next record is buffered. So handing a record over never waits.
	queue := p.cfg.Batch.Size
	if p.order != nil {
		queue = max(queue, p.order.limit)
	}
	p.workers = p.prep.StartWorkers(n, queue, &p.pool)
	return func() {
		p.workers.Stop()
		p.workers = nil
	}
}

// observe records the time since since as a batch's time in stage (one of
// the Timed constants) and returns now, the start of the next stage.
func (p *Pipeline) observe(stage string, since time.Time) time.Time {
	now := time.Now()
	p.m.stage.WithLabelValues(stage).Observe(now.Sub(since).Seconds())
	return now
}

// The stages of a batch, in order, as Deps.AfterStage names them.
const (
	AfterFetched   = "fetched"   // fetched and prepared
	AfterDecided   = "decided"   // verdicts decided
	AfterStaged    = "staged"    // state writes staged
	AfterEmitted   = "emitted"   // output written and acknowledged
	AfterPublished = "published" // state written
	AfterCommitted = "committed" // input offsets committed
)

// BatchStages returns the stages Deps.AfterStage is called after, in order.
func BatchStages() []string {
	return []string{AfterFetched, AfterDecided, AfterStaged, AfterEmitted, AfterPublished, AfterCommitted}
}

// The timed stages of a batch, in order, as the stage label of
// dedupstream_stage_duration_seconds names them. Ask is timed only with a
// sharded index, stage only with a local one; a passthrough times only
// commit.
const (
	TimedAsk     = "ask"     // probes sent to the index shards
	TimedPrepare = "prepare" // records decoded, cleaned and sketched: in the filter, what is left once the batch may go (fetchBatch)
	TimedDecide  = "decide"  // verdicts decided
	TimedStage   = "stage"   // state writes staged (sharded: verdicts settled with the shards)
	TimedEmit    = "emit"    // output written and acknowledged
	TimedPublish = "publish" // state written (sharded: nothing left to do)
	TimedCommit  = "commit"  // input offsets committed
)

// step reports the end of a stage of batch to Deps.AfterStage, if set.
func (p *Pipeline) step(stage string, batch int) error {
	if p.afterStage == nil {
		return nil
	}
	return p.afterStage(stage, batch)
}

// drainContext returns a context that outlives ctx by grace, so work already
// fetched can finish after a stop is requested.
func drainContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	drain, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return drain, func() { stop(); cancel() }
}

var _ Index = (*state.Store)(nil)
