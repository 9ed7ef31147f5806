package shard

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// Server owns index shards: it joins the index group over the shards topic
// and, for each partition the group assigns it, opens that shard's store,
// brings it up to date from the sequence log, and applies and answers the
// log's probes that touch the shard until the assignment ends.
type Server struct {
	cfg      Config
	top      Topology
	o        ServerOptions
	shards   string // the shards topic: the index group's subscription and commits
	sequence string
	writer   *kafka.Writer // answers
	feed     *feed         // the sequence log, read once for every shard held here
	m        *serverMetrics

	joined     atomic.Bool  // a generation of the index group is running
	rebuilding atomic.Int64 // owned shards not yet serving
	local      positions    // shard stores held here and how far each got

	// held are the shard stores open here, owned or standby, by shard. They
	// stay open across generations of the index group: a shard the next
	// generation leaves here, or whose standby copy it makes the owner, goes
	// on with its open store, where closing and opening it would flush its
	// memtables, replay its write-ahead log and rebuild its in-memory
	// indexes by a scan. A generation closes the stores of the shards it does not give
	// this instance; Run closes the rest.
	mu   sync.Mutex
	held map[int]*state.Store
}

// ServerOptions are what a Server needs besides its Config and Topology.
type ServerOptions struct {
	Kafka    stream.KafkaConfig
	Batch    stream.BatchConfig
	Security stream.Security
	Method   lsh.Method
	// Containment is as stream.DeciderOptions.Containment.
	Containment float64
	// State is the base of every shard store's options; shard s lives in
	// State.Dir/shards/SSS.
	State    state.Options
	Logger   *zap.Logger
	Registry prometheus.Registerer
}

// NewServer builds a shard server; Run joins the index group.
func NewServer(cfg Config, top Topology, o ServerOptions) *Server {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	s := &Server{
		cfg: cfg, top: top, o: o, shards: ShardsTopic(o.Kafka.Group), sequence: SequenceTopic(o.Kafka.Group),
		writer: newPartitionWriter(o.Kafka, o.Security),
		m:      newServerMetrics(o.Registry),
	}
	s.feed = newFeed(o.Batch, s.sequenceReader)
	s.feed.readers = func(n int) { s.m.readers.Set(float64(n)) }
	return s
}

// sequenceReader is a reader of the sequence log from offset on.
func (s *Server) sequenceReader(offset int64) (*kafka.Reader, error) {
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: s.o.Kafka.Brokers, Topic: s.sequence, Partition: 0, Dialer: s.o.Security.Dialer(s.o.Kafka.ClientID),
		MinBytes: 1, MaxBytes: 16 << 20, MaxWait: 500 * time.Millisecond,
	})
	if err := r.SetOffset(offset); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// ShardDir is the directory of shard s's store under a state directory.
func ShardDir(stateDir string, s int) string {
	return filepath.Join(stateDir, "shards", fmt.Sprintf("%03d", s))
}

// Stats sums the state statistics of the shard stores open here, owned and
// standby: Docs counts a document once per shard holding it.
func (s *Server) Stats() state.Stats {
	s.mu.Lock()
	stores := slices.Collect(maps.Values(s.held))
	s.mu.Unlock()
	var sum state.Stats
	for _, st := range stores { // a store closed meanwhile reports zeros
		x := st.Stats()
		sum.Docs += x.Docs
		sum.LSMBytes += x.LSMBytes
		sum.VLogBytes += x.VLogBytes
		sum.Postings += x.Postings
		sum.Replays += x.Replays
		sum.IndexBytes += x.IndexBytes
	}
	return sum
}

// storeVersionSuffix marks the sketch version of a shard store that holds
// the documents whose home the shard is: a store of an earlier build's
// layout (its version the method's own, maybe with a "-b…" compact form or
// "+seq", a store of the documents with a key the shard owned) holds other
// documents and is rebuilt from the sequence log.
const storeVersionSuffix = "+home"

// store returns shard id's store, held open from an earlier generation
// (kept) or opened now with o. A store of the method written by an earlier
// build's layout is deleted and rebuilt from the sequence log, its source of
// truth.
func (s *Server) store(id int, o state.Options) (st *state.Store, kept bool, err error) {
	base := s.o.Method.Version()
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.held[id]; ok {
		return st, true, nil
	}
	st, err = state.Open(o)
	var mismatch *state.SketchMismatchError
	if errors.As(err, &mismatch) && (mismatch.Stored == base || strings.HasPrefix(mismatch.Stored, base+"-b") || strings.HasPrefix(mismatch.Stored, base+"+")) {
		s.o.Logger.Warn("shard store of an earlier build's layout; rebuilding it from the sequence log",
			zap.Int("shard", id), zap.String("stored", mismatch.Stored), zap.String("wanted", o.SketchVersion))
		if err = os.RemoveAll(o.Dir); err == nil {
			st, err = state.Open(o)
		}
	}
	if err != nil {
		return nil, false, err
	}
	if s.held == nil {
		s.held = make(map[int]*state.Store)
	}
	s.held[id] = st
	return st, false, nil
}

// release closes the held stores of the shards keep does not name (all of
// them for a nil keep), noting each one's position beside it.
func (s *Server) release(keep func(id int) bool) {
	s.mu.Lock()
	closing := maps.Clone(s.held)
	maps.DeleteFunc(closing, func(id int, _ *state.Store) bool { return keep != nil && keep(id) })
	for id := range closing {
		delete(s.held, id)
	}
	s.mu.Unlock()
	for id, st := range closing {
		s.local.save(s.o.State.Dir, id)
		if err := st.Close(); err != nil {
			s.o.Logger.Warn("closing a shard store", zap.Int("shard", id), zap.Error(err))
		}
	}
}

// Ready reports whether the server is a member of the index group and every
// shard it owns is serving (none rebuilding).
func (s *Server) Ready() bool { return s.joined.Load() && s.rebuilding.Load() == 0 }

// Close closes the answer writer; call it after Run has returned.
func (s *Server) Close() error { return s.writer.Close() }

// Run serves the shards the index group assigns, generation after
// generation, until ctx is cancelled; then it leaves the group.
func (s *Server) Run(ctx context.Context) error {
	k := s.o.Kafka
	s.local.load(s.o.State.Dir)
	// The warm assignor is sticky even without standbys: a rebalance (an
	// instance added, one gone) moves only the shards it must, to members
	// holding a copy where there is one, rather than reassigning by range
	// and rebuilding what moved.
	topics := []string{s.shards}
	if s.cfg.Standbys > 0 {
		topics = append(topics, StandbysTopic(k.Group))
	}
	balancers := []kafka.GroupBalancer{warmBalancer{shards: s.shards, standbys: StandbysTopic(k.Group), replicas: s.cfg.Standbys, local: &s.local}}
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID: IndexGroup(k.Group), Brokers: k.Brokers, Dialer: s.o.Security.Dialer(k.ClientID),
		Topics: topics, GroupBalancers: balancers, StartOffset: kafka.FirstOffset,
		SessionTimeout: k.SessionTimeout, HeartbeatInterval: k.SessionTimeout / 10, JoinGroupBackoff: k.SessionTimeout / 10,
		RebalanceTimeout: k.SessionTimeout, Timeout: 10 * time.Second,
		ErrorLogger: kafka.LoggerFunc(func(f string, a ...any) { s.o.Logger.Debug(fmt.Sprintf(f, a...), zap.String("component", "kafka-go")) }),
	})
	if err != nil {
		return fmt.Errorf("index group %s: %w", IndexGroup(k.Group), err)
	}
	defer s.release(nil) // after the group has closed (defers run last first)
	defer s.feed.close()
	defer cg.Close()
	for {
		gen, err := cg.Next(ctx)
		s.joined.Store(false)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, kafka.ErrGroupClosed):
			return nil
		case err != nil:
			s.o.Logger.Warn("index group: joining failed, retrying", zap.Error(err))
			continue
		}
		s.serveGeneration(gen)
	}
}

// serveGeneration starts one goroutine per assigned shard, owned by the
// generation: kafka-go ends the generation (a rebalance, leaving the group)
// only after every one of them has returned.
func (s *Server) serveGeneration(gen *kafka.Generation) {
	assigned := gen.Assignments[s.shards]
	standby := gen.Assignments[StandbysTopic(s.o.Kafka.Group)]
	standby = slices.DeleteFunc(slices.Clone(standby), func(b kafka.PartitionAssignment) bool { // one store, one writer
		return slices.ContainsFunc(assigned, func(a kafka.PartitionAssignment) bool { return a.ID == b.ID })
	})
	ids := func(as []kafka.PartitionAssignment) []int {
		out := make([]int, len(as))
		for i, a := range as {
			out[i] = a.ID
		}
		return out
	}
	s.o.Logger.Info("index shards assigned", zap.Int32("generation", gen.ID), zap.Ints("shards", ids(assigned)), zap.Ints("standby", ids(standby)))
	// The previous generation's shard goroutines have all returned: close
	// the stores of the shards this one does not give us.
	kept := append(ids(assigned), ids(standby)...)
	s.release(func(id int) bool { return slices.Contains(kept, id) })
	s.m.owned.Set(float64(len(assigned)))
	s.rebuilding.Add(int64(len(assigned)))
	for _, a := range standby {
		gen.Start(func(ctx context.Context) {
			if err := s.serveShard(ctx, nil, a.ID, standbyOffset); err != nil && ctx.Err() == nil {
				s.release(func(id int) bool { return id != a.ID }) // the next try opens it afresh
				s.o.Logger.Error("standby shard failed; retrying it after a pause", zap.Int("shard", a.ID), zap.Error(err))
				sleepCtx(ctx, shardRetryPause)
			}
		})
	}
	commits := newCommitter(gen, s.shards, s.cfg.CommitInterval, s.o.Logger)
	if len(assigned) > 0 {
		gen.Start(commits.run)
	}
	for _, a := range assigned {
		gen.Start(func(ctx context.Context) {
			if err := s.serveShard(ctx, commits, a.ID, a.Offset); err != nil && ctx.Err() == nil {
				s.release(func(id int) bool { return id != a.ID }) // the next try opens it afresh
				s.o.Logger.Error("shard failed; retrying it after a pause, in a new generation of the index group",
					zap.Int("shard", a.ID), zap.Duration("pause", shardRetryPause), zap.Error(err))
				sleepCtx(ctx, shardRetryPause) // returning ends the generation: not in a tight loop
			}
		})
	}
	s.joined.Store(true)
}

// standbyOffset, as the committed offset of serveShard, makes it a warm
// standby: it applies the sequence log and never answers nor commits.
const standbyOffset = math.MaxInt64

// shardRetryPause is how long a shard that failed waits before it gives its
// generation up (and so the group rebalances and assigns it again).
const shardRetryPause = 5 * time.Second

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// shardRun is one shard served in one generation.
type shardRun struct {
	s       *Server
	id      int
	label   string
	store   *state.Store
	dec     *stream.Decider
	commits *committer // nil for a standby
	answer  int64      // first offset to answer; below it the log is applied silently (rebuild)
	standby bool       // a warm copy: applies the log, never answers
	serving bool
	sampled time.Time // when the documents gauge was last set
	lastPos uint64    // the largest position stored in this run, for the order check
	settle  *settling // documents awaiting their finals, answers held on them
	rewrite rewrites  // records rewritten since the last writeRewrites
	// bufs are batch's and decide's slices, kept from one batch to the next.
	bufs struct {
		run  []probeAt
		docs []state.Doc
		here []bool
	}
}

// serveShard opens shard id's store (or takes it as an earlier generation
// left it), replays the sequence log from where the store or the group left
// off, and serves until ctx (the generation) ends, offering the positions it
// has answered to commits.
func (s *Server) serveShard(ctx context.Context, commits *committer, id int, committed int64) error {
	r := &shardRun{s: s, id: id, label: strconv.Itoa(id), commits: commits, standby: committed == standbyOffset, settle: newSettling(s.cfg.AnswerTimeout)}
	defer func() {
		if !r.serving && !r.standby {
			s.rebuilding.Add(-1)
		}
	}()
	kept, err := r.open()
	if err != nil {
		return err
	}
	from, err := r.startAt(committed)
	if err != nil {
		return err
	}
	s.o.Logger.Info("shard opened", zap.Int("shard", id), zap.Bool("standby", r.standby), zap.Bool("kept_open", kept),
		zap.Int64("replay_from", from), zap.Int64("answer_from", r.answer))
	defer s.feed.leave(id)
	if !r.standby && (from >= r.answer || r.answer == 0) { // nothing to apply silently first
		r.serve(max(from, 0))
	}
	return r.loop(ctx, from)
}

// open opens the shard's store, or takes it as an earlier generation left
// it (kept), and its decider.
func (r *shardRun) open() (kept bool, err error) {
	s := r.s
	r.store, kept, err = s.store(r.id, s.storeOptions(r.id))
	if err != nil {
		return false, err
	}
	r.dec = stream.NewDecider(r.store, s.o.Method, stream.DeciderOptions{Containment: s.o.Containment, Sequenced: true})
	return kept, nil
}

// storeOptions are the options of shard id's store.
func (s *Server) storeOptions(id int) state.Options {
	o := s.o.State.ForMethod(s.o.Method)
	o.SketchVersion += storeVersionSuffix
	o.Dir, o.SetKeys, o.NoExactIndex = ShardDir(s.o.State.Dir, id), true, true
	o.MemtableBytes, o.NumMemtables = s.cfg.MemtableBytes, storeMemtables
	o.Logger = s.o.Logger.Named("shard" + strconv.Itoa(id))
	return o
}

// startAt returns the first log offset to read: the store's applied position,
// or the group's committed offset if that is earlier (answers from there on
// may not have been written). It sets r.answer to the committed offset.
func (r *shardRun) startAt(committed int64) (int64, error) {
	applied, ok, err := r.store.Applied()
	if err != nil {
		return 0, err
	}
	if committed < 0 { // nothing committed: every probe still wants its answer
		committed = 0
	}
	r.answer = committed
	if !ok {
		return kafka.FirstOffset, nil
	}
	return min(applied, committed), nil
}

// loop applies and answers batches of the sequence log from offset on
// until ctx ends.
func (r *shardRun) loop(ctx context.Context, offset int64) error {
	for {
		b, err := r.s.feed.next(ctx, r.id, offset)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			r.s.o.Logger.Warn("read the sequence log failed, retrying", zap.Int("shard", r.id), zap.Error(err))
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err := r.batch(ctx, b); err != nil {
			return err
		}
		last := &b.msgs[len(b.msgs)-1]
		r.progress(last)
		offset = last.Offset + 1
	}
}

// progress updates the rebuild state and the lag after a batch.
func (r *shardRun) progress(last *kafka.Message) {
	r.s.local.set(r.id, last.Offset+1)
	if r.standby {
		return
	}
	m := r.s.m
	m.lag.WithLabelValues(r.label).Set(float64(max(last.HighWaterMark-last.Offset-1, 0)))
	remaining := max(r.answer-last.Offset-1, 0)
	m.rebuild.WithLabelValues(r.label).Set(float64(remaining))
	if !r.serving && remaining == 0 {
		r.serve(last.Offset + 1)
	}
	if time.Since(r.sampled) > 5*time.Second { // Stats reads the table list and the log files
		r.sampled = time.Now()
		r.s.local.save(r.s.o.State.Dir, r.id)
		m.docs.WithLabelValues(r.label).Set(float64(r.store.Stats().Docs))
	}
}

// serve marks the shard caught up: every record it reads from offset on is answered.
func (r *shardRun) serve(offset int64) {
	r.serving = true
	r.s.rebuilding.Add(-1)
	r.s.m.rebuild.WithLabelValues(r.label).Set(0)
	r.s.o.Logger.Info("shard serving", zap.Int("shard", r.id), zap.Int64("offset", offset))
}

// batch applies a batch of log records in order — runs of the probes that
// touch this shard decided together, finals one by one between them — then
// writes the answers due (those of the probes from r.answer on, and those
// released by finals) and offers for commit the position a restart must
// read from.
func (r *shardRun) batch(ctx context.Context, b fed) error {
	msgs := b.msgs
	run := r.bufs.run[:0]
	defer func() { clear(run); r.bufs.run = run[:0] }() // kept empty: no decoded batch outlives the feed's window
	out := newAnswerPacker()
	answered := 0
	flush := func(next int64) error {
		if len(run) == 0 {
			return nil
		}
		n, err := r.decide(run, next, out)
		answered += n
		run = run[:0]
		return err
	}
	for i := range msgs {
		m, rec := &msgs[i], &b.recs[i]
		if err := b.errs[i]; err != nil {
			r.s.m.malformed.Inc()
			r.s.o.Logger.Error("skipping a malformed sequence-log record", zap.Int("shard", r.id), zap.Int64("offset", m.Offset), zap.Error(err))
			continue
		}
		run = r.appendProbes(run, m, rec.probes)
		if len(rec.finals) == 0 {
			continue
		}
		if err := flush(m.Offset); err != nil {
			return err
		}
		for i := range rec.finals {
			if !r.reads(rec.finals[i].hash) {
				continue
			}
			n, err := r.applyFinal(&rec.finals[i], out)
			if err != nil {
				return err
			}
			answered += n
		}
	}
	next := msgs[len(msgs)-1].Offset + 1
	if err := r.writeRewrites(); err != nil { // before the position is recorded
		return err
	}
	if len(run) == 0 { // a batch ending on finals, or touching nothing here, still records how far it got
		if err := r.store.Apply(nil, r.settle.commitBound(next)); err != nil {
			return err
		}
	} else if err := flush(next); err != nil {
		return err
	}
	n, err := r.expire(out)
	if err != nil {
		return err
	}
	if err := r.writeRewrites(); err != nil { // before the answers go out
		return err
	}
	answered += n
	r.s.m.applied.WithLabelValues(r.label).Add(float64(len(msgs)))
	r.s.m.held.WithLabelValues(r.label).Set(float64(r.settle.nheld))
	if err := r.writeAnswers(ctx, out.messages(AnswersTopic(r.s.o.Kafka.Group)), answered); err != nil {
		return nil // the generation ended (loop sees ctx); nothing committed
	}
	if pos := r.settle.commitBound(next); pos > r.answer && !r.standby {
		r.commits.offer(r.id, pos)
	}
	return nil
}

// reads says whether this shard reads a document's final: those of the
// documents it stores and of the copies it answered for before their
// originals settled (settling.early).
func (r *shardRun) reads(hash uint64) bool { return r.stores(hash) || r.settle.copies[hash] > 0 }

// stores says whether this shard is the home of a document.
func (r *shardRun) stores(hash uint64) bool { return home(hash, r.s.top.Shards) == r.id }

// appendProbes appends to run the probes of the log record m, as this
// shard decides them (probeAt), under the front batch its key names. The
// probes are decoded as decodeBatch leaves them, shared with the other
// shards held here: read, never written.
func (r *shardRun) appendProbes(run []probeAt, m *kafka.Message, probes []probe) []probeAt {
	if len(probes) == 0 {
		return run
	}
	key, resent := batchKey(m.Key)
	batch := r.settle.batchAt(key, m.Offset)
	for j := range probes {
		p := &probes[j]
		run = append(run, probeAt{probe: p, offset: m.Offset, at: m.Time, key: key, batch: batch, resent: resent,
			home: r.stores(p.doc.ContentHash), shared: r.s.top.Shards > 1})
	}
	return run
}

// probeAt is a probe, as decoded from its record, and its offset in the
// log: looked up by all its index keys, stored if this shard is its home.
type probeAt struct {
	*probe
	offset int64
	at     time.Time // the record's timestamp
	key    string    // its front batch's key (batchKey)
	batch  int64     // the first offset of the front batch it came in (settling.batchAt)
	home   bool      // this shard stores it
	shared bool      // other shards answer it too: its decision is joined, and settled by its final
	resent int       // how many times its front has sent it again after index.answer_timeout (settling.resent)
}

// batchKey splits a probe record's key into its front batch's key and how
// many times the record was sent again (0: the first send; see
// asked.probes).
func batchKey(k []byte) (string, int) {
	if n := len(k); n%8 == 1 && k[n-1] > 0 {
		return string(k[:n-1]), int(k[n-1])
	}
	return string(k), 0
}

// decide decides a run of probes, stores them with the log position next,
// and adds to out the answers due, holding back those that matched a
// document still unsettled here; it returns how many it added.
func (r *shardRun) decide(run []probeAt, next int64, out *answerPacker) (int, error) {
	docs, here := r.bufs.docs[:0], r.bufs.here[:0]
	defer func() { clear(docs); r.bufs.docs, r.bufs.here = docs[:0], here[:0] }()
	for i := range run {
		docs, here = append(docs, run[i].doc), append(here, run[i].home)
		if !here[i] { // its exact key (indexKeys' last) is posted only in its home, with every exact copy
			docs[i].Bands = docs[i].Bands[:len(docs[i].Bands)-1]
		}
	}
	if err := r.writeRewrites(); err != nil { // the decider reads replayed records, and Apply records the position
		return 0, err
	}
	dec, err := r.dec.DecideProbes(docs, here)
	if err != nil {
		return 0, err
	}
	defer r.dec.Retire(dec)
	r.checkOrder(dec.Stage)
	if err := r.store.Apply(dec.Stage, r.resumeAt(run, next)); err != nil {
		return 0, fmt.Errorf("shard %d: store %d documents: %w", r.id, len(dec.Stage), err)
	}
	now, n, staged := time.Now(), 0, 0
	for i := range run {
		d, key := &dec.Decisions[i], docKey{docs[i].Source, docs[i].ContentHash}
		// Its record, if stored here: the one this run stored (dec.Stage),
		// or for a replay the one stored before.
		var stored state.Doc
		have, replayed := false, false
		if run[i].home && !d.Replayed {
			stored, have = dec.Stage[staged], true
			staged++
		}
		if run[i].home && run[i].shared && !r.settle.settledBefore(d, key, run[i].offset) {
			released := r.settle.add(key, run[i].batch, run[i].at, d.Pos, run[i].offset, d.Cluster, now)
			m, err := r.answerReleased(released, out)
			if n += m; err != nil {
				return n, err
			}
		}
		h := heldAnswer{offset: run[i].offset, batch: run[i].batch, reply: run[i].reply, on: d.OfPos,
			a: answer{shard: r.id, source: docs[i].Source, hash: docs[i].ContentHash, dec: *d}}
		if !run[i].home {
			h.a.dec.Pos = 0 // only its home's answer names the document's position (join)
		}
		// A replayed decision's record says whether its cluster is fixed.
		if d.Replayed {
			if stored, replayed, err = r.record(h.a.source, h.a.hash); err != nil {
				return n, err
			}
			have = replayed
			if stored.Provisional { // marked so by an earlier run
				r.settle.provisional[key] = true
			}
		}
		cluster, early := uint64(0), false
		if !run[i].home {
			cluster, early = r.settle.wentOutWith(key, d)
		}
		switch {
		case early:
			// A copy stored elsewhere whose answer went out from here before
			// its original settled, and whose own final has not come: a
			// replay repeats the cluster it went out with (settling.early).
			h.a.dec.Cluster = cluster
		case replayed && !stored.Provisional:
			// Its answer went out for good before: a replay repeats it.
		case run[i].resent > 0 && r.settle.resent(h.a.source, h.a.hash, run[i].resent):
			continue // its front has waited index.answer_timeout once (settling.resent)
		case run[i].resent == 0 && r.settle.holds(d, run[i].batch):
			r.s.o.Logger.Debug("answer held", zap.Int("shard", r.id), zap.String("source", h.a.source),
				zap.Int64("offset", h.offset), zap.Int64("batch", h.batch), zap.Uint64("on", h.on))
			r.settle.hold(h)
			r.markProvisional(&h.a, have, stored)
			continue
		case run[i].shared && r.settle.sameBatch(d, run[i].batch):
			// Its original came in this batch or was appended again by it:
			// the joining front may still correct the cluster. (With one
			// shard its answer is the joined one, and no final follows.)
			r.markProvisional(&h.a, have, stored)
		case replayed:
			if err := r.settleReplay(&h.a, stored); err != nil {
				return n, err
			}
		case !run[i].home && d.Verdict == stream.Unique && run[i].index >= 0:
			n += r.packNothing(out, &run[i])
			continue
		}
		n += r.pack(out, &h)
	}
	return n, nil
}

// settleReplay fixes the cluster of a replayed document still provisional
// (answered only inside its original's batch, whose front did not settle
// it) as its answer goes out for good: its original's stored cluster, which
// the original's final has made the joined one.
func (r *shardRun) settleReplay(a *answer, doc state.Doc) error {
	if doc.Of != 0 {
		orig, found, err := r.recordAt(doc.Of)
		if err != nil {
			return err
		}
		if found && orig.Cluster != 0 {
			doc.Cluster, a.dec.Cluster = orig.Cluster, orig.Cluster
		}
	}
	r.fix(doc)
	return nil
}

// markProvisional marks a provisional, and its document's record doc as
// such if this shard stores it (stored).
func (r *shardRun) markProvisional(a *answer, stored bool, doc state.Doc) {
	a.provisional = true
	if !stored {
		return
	}
	r.settle.provisional[docKey{a.source, a.hash}] = true
	if !doc.Provisional {
		doc.Provisional = true
		r.rewrite.add(doc)
	}
}

// fix rewrites doc's record with its cluster fixed.
func (r *shardRun) fix(doc state.Doc) {
	delete(r.settle.provisional, docKey{doc.Source, doc.ContentHash})
	doc.Provisional = false
	r.rewrite.add(doc)
}

// rewrites are the records a shard has rewritten — a copy marked
// provisional, a document whose cluster is fixed — and not yet stored.
// writeRewrites stores them in one transaction before the next decision,
// before a batch records how far it got and before its answers go out (a
// transaction each would be one for every six documents at 8 shards,
// beside one Apply for every forty). Until then a record is read from here
// (record, recordAt).
type rewrites struct {
	docs []state.Doc
	at   map[docKey]int // index in docs
}

func (w *rewrites) add(doc state.Doc) {
	doc.Bands = nil // a rewrite stores the record only
	k := docKey{doc.Source, doc.ContentHash}
	if i, ok := w.at[k]; ok {
		w.docs[i] = doc
		return
	}
	if w.at == nil {
		w.at = make(map[docKey]int)
	}
	w.at[k] = len(w.docs)
	w.docs = append(w.docs, doc)
}

// record is a document's stored record, as rewritten if it was.
func (r *shardRun) record(source string, hash uint64) (state.Doc, bool, error) {
	if i, ok := r.rewrite.at[docKey{source, hash}]; ok {
		return r.rewrite.docs[i], true, nil
	}
	return r.store.Replayed(source, hash)
}

// recordAt is the stored record of seq, as rewritten if it was.
func (r *shardRun) recordAt(seq uint64) (state.Doc, bool, error) {
	for i := range r.rewrite.docs {
		if r.rewrite.docs[i].Seq == seq {
			return r.rewrite.docs[i], true, nil
		}
	}
	return r.store.Get(seq)
}

// writeRewrites stores the records rewritten since it last ran (rewrites
// says when), so that an answer never goes out, nor a log position is
// recorded, ahead of the records it implies.
func (r *shardRun) writeRewrites() error {
	w := &r.rewrite
	if len(w.docs) == 0 {
		return nil
	}
	err := r.store.Stage(w.docs)
	if err != nil {
		err = fmt.Errorf("shard %d: rewrite %d records: %w", r.id, len(w.docs), err)
	}
	clear(w.at)
	w.docs = w.docs[:0]
	return err
}

// resumeAt is the log position a restart on this store must read from once
// run is applied: next, or the earliest document still awaiting its final
// (this run's shared ones stored here included), so that the restart rebuilds what is
// held and unsettled here as this run has it (settle.go).
func (r *shardRun) resumeAt(run []probeAt, next int64) int64 {
	at := r.settle.commitBound(next)
	if i := slices.IndexFunc(run, func(p probeAt) bool { return p.home && p.shared }); i >= 0 {
		at = min(at, run[i].offset, run[i].batch)
	}
	return at
}

// pack adds an answer to out if it is due (a rebuild applies the log below
// r.answer silently; a standby never answers), and says whether it did.
func (r *shardRun) pack(out *answerPacker, h *heldAnswer) int {
	r.noteEarly(h) // a rebuild notes it too, answering or not
	if !r.due(h.offset) {
		return 0
	}
	if r.s.o.Logger.Core().Enabled(zap.DebugLevel) {
		d := &h.a.dec
		r.s.o.Logger.Debug("answer", zap.Int("shard", r.id), zap.String("source", h.a.source), zap.Int64("offset", h.offset),
			zap.Int64("batch", h.batch), zap.Uint8("verdict", uint8(d.Verdict)), zap.String("of", d.Of), zap.Uint64("of_pos", d.OfPos),
			zap.Uint64("cluster", d.Cluster), zap.Bool("replayed", d.Replayed))
	}
	out.one(h.reply, &h.a)
	return 1
}

// due says whether the answer to a probe of the record at offset goes out:
// a rebuild applies the log below r.answer silently, a standby never answers.
func (r *shardRun) due(offset int64) bool { return offset >= r.answer && !r.standby }

// noteEarly notes an answer to a copy stored in another shard that goes out
// before its original settled here, with this shard's view of the
// original's cluster (settling.early).
func (r *shardRun) noteEarly(h *heldAnswer) {
	d := &h.a.dec
	if h.a.provisional || !d.Verdict.Duplicate() || d.OfPos == 0 || r.settle.byPos[d.OfPos] == nil || r.stores(h.a.hash) {
		return
	}
	r.settle.early(docKey{h.a.source, h.a.hash}, d.OfPos, h.offset, h.batch, d.Cluster, time.Now())
}

// packNothing adds to out that this shard has nothing for p, as pack.
func (r *shardRun) packNothing(out *answerPacker, p *probeAt) int {
	if !r.due(p.offset) {
		return 0
	}
	if r.s.o.Logger.Core().Enabled(zap.DebugLevel) {
		r.s.o.Logger.Debug("answer", zap.Int("shard", r.id), zap.String("source", p.doc.Source), zap.Int64("offset", p.offset),
			zap.Int64("batch", p.batch), zap.Bool("nothing", true))
	}
	out.nothingFor(p.reply, r.id, p.key, p.index)
	return 1
}

// checkOrder counts the new documents stored behind one this run already
// stored (dedupstream_shard_missed_pairs_total): a shard that decided a
// document before an earlier one could miss their pair. Applying the log in
// its order, it counts none.
func (r *shardRun) checkOrder(stored []state.Doc) {
	for i := range stored {
		if p := stored[i].Pos; p <= r.lastPos {
			r.s.m.late.WithLabelValues(r.label).Inc()
			r.s.o.Logger.Error("document stored out of sequence order", zap.Int("shard", r.id),
				zap.String("source", stored[i].Source), zap.Uint64("pos", p), zap.Uint64("after", r.lastPos))
		} else {
			r.lastPos = p
		}
	}
}

// applyFinal settles a document: a changed decision rewrites its stored
// verdict fields, and the answers held on it go out with its cluster (and
// are stored with it). A final for a document this shard does not hold is
// skipped: only its home stores it. It returns how many answers it added to out.
func (r *shardRun) applyFinal(f *final, out *answerPacker) (int, error) {
	r.settle.copySettled(docKey{f.source, f.hash})
	if !r.stores(f.hash) {
		return 0, nil // answers are held only on documents stored here
	}
	if f.changed || r.settle.provisional[docKey{f.source, f.hash}] { // what its front emitted is fixed
		doc, ok, err := r.record(f.source, f.hash)
		if err != nil {
			return 0, err
		}
		if ok {
			if f.changed {
				d := f.dec
				doc.Verdict, doc.Similarity, doc.OfID, doc.Cluster = uint8(d.Verdict), float32(d.Similarity), d.Of, d.Cluster
				doc.OfPos, doc.Of = d.OfPos, 0
			}
			r.fix(doc)
		}
	}
	released, _ := r.settle.settle(f)
	r.s.o.Logger.Debug("final", zap.Int("shard", r.id), zap.String("source", f.source), zap.Bool("changed", f.changed),
		zap.Uint64("cluster", f.dec.Cluster), zap.Int("released", len(released)))
	return r.answerReleased(released, out)
}

// expire settles the documents whose finals are overdue (settleExpiry) and
// answers what they held.
func (r *shardRun) expire(out *answerPacker) (int, error) {
	released, expired := r.settle.expire(time.Now())
	if expired > 0 {
		r.s.m.expired.WithLabelValues(r.label).Add(float64(expired))
		r.s.o.Logger.Warn("documents never settled by their fronts; answering their duplicates with the clusters held here",
			zap.Int("shard", r.id), zap.Int("documents", expired), zap.Duration("waited", settleExpiry))
	}
	return r.answerReleased(released, out)
}

// answerReleased fixes released answers' clusters in the store and adds
// them to out. A document whose cluster an earlier answer already fixed
// keeps it (a replay says what was said).
func (r *shardRun) answerReleased(released []heldAnswer, out *answerPacker) (int, error) {
	n := 0
	for i := range released {
		h := &released[i]
		doc, ok, err := r.record(h.a.source, h.a.hash)
		if err != nil {
			return n, err
		}
		if ok {
			if doc.Provisional {
				doc.Cluster = h.a.dec.Cluster
				r.fix(doc)
			}
			h.a.dec.Cluster = doc.Cluster
		}
		h.a.provisional = false // released with its original's settled cluster
		r.settle.view(docKey{h.a.source, h.a.hash}, h.a.dec.Cluster)
		n += r.pack(out, h)
	}
	return n, nil
}

// writeAnswers writes answers and waits for the acknowledgement, retrying
// until written or ctx ends. When the generation ends first it returns the
// error and nothing is committed, so the next owner answers these probes
// again from the committed offset.
func (r *shardRun) writeAnswers(ctx context.Context, msgs []kafka.Message, n int) error {
	err := writeAll(ctx, r.s.writer, msgs, func(err error) {
		r.s.o.Logger.Warn("write answers failed, retrying", zap.Int("shard", r.id), zap.Error(err))
	})
	if err == nil {
		r.s.m.answered.WithLabelValues(r.label).Add(float64(n))
	}
	return err
}

// compile-time check that the front is what the pipeline needs.
var _ stream.Sharded = (*Front)(nil)
