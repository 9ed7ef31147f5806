package shard

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// Front is the sharded index as a pipeline sees it (stream.Sharded): it
// appends each batch's documents to the sequence log, where the shards that
// own their keys read them, and joins the shards' answers. It owns one answer reader per input partition it asks for,
// started on first use, stopped once the partition has had no document in
// flight for answerReaderIdle (its input moved to another instance, or went
// quiet), and stopped by Close.
type Front struct {
	cfg      Config
	top      Topology
	sequence string // topic names
	answer   string
	log      *zap.Logger
	writer   *kafka.Writer
	client   *kafka.Client
	reader   kafka.ReaderConfig // template of the answer readers
	m        *frontMetrics

	mu      sync.Mutex
	pending map[docKey][]*waiting // a record fetched again after a rebalance can be in flight twice
	batches map[string]*asked     // the batches in flight, by key
	flying  map[int]int           // documents in pending by input partition (absent: none)
	readers map[int]*answerReader
	ctx     context.Context // the readers'
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// answerReader is the reader of one answer partition and when the front
// last asked for it.
type answerReader struct {
	stop context.CancelFunc
	used time.Time
}

// answerReaderIdle is how long an answer reader runs with no document of its
// partition in flight before it stops. An instance that lost an input
// partition in a rebalance would otherwise read, and ignore, the answers to
// the partition's new owner for as long as it runs.
const answerReaderIdle = 10 * time.Second

// FrontOptions are what a Front needs besides its Config and Topology.
type FrontOptions struct {
	Kafka    stream.KafkaConfig
	Security stream.Security
	Logger   *zap.Logger
	Registry prometheus.Registerer
}

// NewFront builds a front for the filter whose consumer group is o.Kafka.Group.
func NewFront(cfg Config, top Topology, o FrontOptions) *Front {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	g := o.Kafka.Group
	ctx, stop := context.WithCancel(context.Background())
	f := &Front{
		cfg: cfg, top: top, sequence: SequenceTopic(g), answer: AnswersTopic(g), log: o.Logger,
		writer: newPartitionWriter(o.Kafka, o.Security),
		client: &kafka.Client{Addr: kafka.TCP(o.Kafka.Brokers...), Transport: o.Security.Transport(o.Kafka.ClientID)},
		reader: kafka.ReaderConfig{
			Brokers: o.Kafka.Brokers, Topic: AnswersTopic(g), Dialer: o.Security.Dialer(o.Kafka.ClientID),
			MinBytes: 1, MaxBytes: 8 << 20, MaxWait: 500 * time.Millisecond,
			ErrorLogger: kafka.LoggerFunc(func(f string, a ...any) { o.Logger.Warn(fmt.Sprintf(f, a...), zap.String("component", "kafka-go")) }),
		},
		m:       newFrontMetrics(o.Registry),
		pending: make(map[docKey][]*waiting),
		batches: make(map[string]*asked),
		flying:  make(map[int]int),
		readers: make(map[int]*answerReader),
		ctx:     ctx, stop: stop,
	}
	f.stopIdle()
	return f
}

// stopIdle runs the goroutine that stops idle answer readers, until Close.
func (f *Front) stopIdle() {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		t := time.NewTicker(answerReaderIdle / 2)
		defer t.Stop()
		for {
			select {
			case <-f.ctx.Done():
				return
			case now := <-t.C:
				f.stopIdleReaders(now)
			}
		}
	}()
}

// stopIdleReaders stops the answer readers not asked for since
// answerReaderIdle before now and with no document in flight. Ask registers
// its documents before it checks their readers, and both hold f.mu, so a
// batch never goes out counting on a reader that is being stopped.
func (f *Front) stopIdleReaders(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for p, r := range f.readers {
		if now.Sub(r.used) >= answerReaderIdle && f.flying[p] == 0 {
			r.stop()
			delete(f.readers, p)
			f.log.Debug("answer reader stopped: no document of its partition in flight", zap.Int("partition", p))
		}
	}
}

// newPartitionWriter is a writer that sends each message to the partition it
// names. Unlike the pipeline's output writer (stream.SendAtOnce), it waits a
// millisecond for a batch to fill: several goroutines write through it at
// once — a server's shards answer the same front batch into the same answer
// partition, a front asks, settles and resends from different stages — and
// kafka-go sends one request at a time per partition, so what they write
// within the millisecond goes in one request instead of one after another.
// Its records are batches of up to maxRecordBytes, a few to a request, and
// kafka-go allocates room for BatchSize messages with every request: 64,
// not the thousands a writer of single documents wants.
func newPartitionWriter(k stream.KafkaConfig, sec stream.Security) *kafka.Writer {
	return &kafka.Writer{
		Addr: kafka.TCP(k.Brokers...), Balancer: toPartition{}, RequiredAcks: kafka.RequireAll,
		BatchSize: 64, BatchBytes: int64(k.MaxBatchBytes), BatchTimeout: time.Millisecond, MaxAttempts: 3,
		Transport: sec.Transport(k.ClientID),
	}
}

// toPartition balances each message to the partition it names.
type toPartition struct{}

func (toPartition) Balance(m kafka.Message, _ ...int) int { return m.Partition }

// Close stops the answer readers and closes the writer. Asked batches still
// waiting fail.
func (f *Front) Close() error {
	f.stop()
	f.wg.Wait() // each reader's loop closes it
	err := f.writer.Close()
	if t, ok := f.client.Transport.(*kafka.Transport); ok {
		t.CloseIdleConnections()
	}
	return err
}

// docKey names a document in flight: its input position and content hash,
// as its answers name it.
type docKey struct {
	source string
	hash   uint64
}

// waiting is one document in flight: what each shard answered.
type waiting struct {
	doc     *state.Doc
	reply   int
	home    int               // the shard that stores it
	answers []stream.Decision // by shard
	got     []bool
	fixed   bool // its home's answer is a stored one and no answer's cluster is provisional
	left    int
	batch   *asked
}

// asked is one batch in flight; it implements stream.Asked.
type asked struct {
	f       *Front
	key     []byte // the key of its probe records, sent again alike: which documents settle together
	docs    []state.Doc
	waits   []*waiting
	left    int           // documents not fully answered; guarded by f.mu
	resends int           // how many times its probes were sent again; guarded by f.mu
	done    chan struct{} // closed when left reaches 0
	dec     []stream.Decision
}

// Ask implements stream.Sharded: it registers the documents as waiting,
// makes sure their answer partitions are being read, and appends them to the
// sequence log.
// Registering first keeps those readers from being stopped as idle (a
// partition with a document in flight is not) while the others start.
func (f *Front) Ask(ctx context.Context, docs []state.Doc) (stream.Asked, error) {
	a := &asked{f: f, key: binary.BigEndian.AppendUint64(nil, rand.Uint64()), docs: docs, waits: make([]*waiting, len(docs)), done: make(chan struct{})}
	for i := range docs {
		_, reply, _, ok := stream.ParseSource(docs[i].Source)
		if !ok || reply >= f.top.InputPartitions {
			return nil, fmt.Errorf("document %q: input position %q is not on one of the %d input partitions", docs[i].ID, docs[i].Source, f.top.InputPartitions)
		}
		n := f.top.Shards
		a.waits[i] = &waiting{doc: &docs[i], reply: reply, home: home(docs[i].ContentHash, n), answers: make([]stream.Decision, n),
			got: make([]bool, n), fixed: true, left: n, batch: a}
	}
	f.register(a)
	reading := -1 // the last input partition whose answer reader was checked
	for _, w := range a.waits {
		if w.reply != reading { // a batch mostly comes from one partition at a time
			if err := f.readAnswers(ctx, w.reply); err != nil {
				f.forget(a)
				return nil, err
			}
			reading = w.reply
		}
	}
	msgs, n := a.probes(nil)
	if err := f.send(ctx, msgs); err != nil {
		f.forget(a)
		return nil, err
	}
	f.m.probes.Add(float64(n))
	return a, nil
}

func (f *Front) register(a *asked) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a.left = len(a.waits)
	f.batches[string(a.key)] = a
	for _, w := range a.waits {
		k := docKey{w.doc.Source, w.doc.ContentHash}
		f.pending[k] = append(f.pending[k], w)
		f.flying[w.reply]++
	}
	if a.left == 0 {
		close(a.done)
	}
	f.m.pending.Add(float64(len(a.waits)))
}

func (f *Front) forget(a *asked) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.batches, string(a.key))
	for _, w := range a.waits {
		k := docKey{w.doc.Source, w.doc.ContentHash}
		if ws := slices.DeleteFunc(f.pending[k], func(x *waiting) bool { return x == w }); len(ws) > 0 {
			f.pending[k] = ws
		} else {
			delete(f.pending, k)
		}
		if f.flying[w.reply]--; f.flying[w.reply] == 0 {
			delete(f.flying, w.reply)
		}
	}
	f.m.pending.Sub(float64(len(a.waits)))
}

// probes builds the sequence-log records of the batch's documents (all of
// them before the first answer), or only of those some shard has not
// answered when missing is set, in the batch's order, and the number of
// probes — documents and shards asked — they stand for.
func (a *asked) probes(missing func(w *waiting) bool) ([]kafka.Message, int) {
	key := a.key
	if missing != nil { // sent again: the key says how many times (settling.resent)
		a.resends++
		key = append(slices.Clip(a.key), byte(min(a.resends, 255)))
	}
	pk := newPacker(wireVersion, kindProbes)
	n := 0
	for i, w := range a.waits {
		if missing != nil && !missing(w) {
			continue
		}
		p := probe{reply: w.reply, index: i, doc: *w.doc}
		pk.add(func(dst []byte) []byte { return appendProbeBody(dst, &p) })
		n += len(w.answers)
	}
	msgs := a.f.messages(pk)
	for i := range msgs {
		msgs[i].Key = key
	}
	return msgs, n
}

// messages are the records pk packed, as messages to the sequence log.
func (f *Front) messages(pk *packer) []kafka.Message {
	recs := pk.records()
	msgs := make([]kafka.Message, len(recs))
	for i, v := range recs {
		msgs[i] = kafka.Message{Topic: f.sequence, Partition: 0, Value: v}
	}
	return msgs
}

// send appends records to the sequence log and waits for the
// acknowledgement, retrying with backoff until written or ctx ends.
func (f *Front) send(ctx context.Context, msgs []kafka.Message) error {
	err := writeAll(ctx, f.writer, msgs, func(err error) {
		f.log.Warn("write to the sequence log failed, retrying", zap.Int("records", len(msgs)), zap.Error(err))
	})
	if err != nil {
		return fmt.Errorf("sequence-log records abandoned at shutdown; the batch will be replayed: %w", err)
	}
	return nil
}

// writeAll writes msgs with w and waits for the acknowledgement, retrying
// with backoff (reporting each failure to failed) until written or ctx ends.
func writeAll(ctx context.Context, w *kafka.Writer, msgs []kafka.Message, failed func(error)) error {
	backoff := 100 * time.Millisecond
	for len(msgs) > 0 {
		err := w.WriteMessages(ctx, msgs...)
		if err == nil {
			return nil
		}
		failed(err)
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
	return nil
}

// Wait implements stream.Asked: it waits until every shard asked has answered
// every document, sending again the probes still unanswered after
// index.answer_timeout, and joins each document's answers.
func (a *asked) Wait(ctx context.Context) ([]stream.Decision, error) {
	f := a.f
	start := time.Now()
	for {
		t := time.NewTimer(f.cfg.AnswerTimeout)
		select {
		case <-a.done:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			f.forget(a)
			return nil, ctx.Err()
		case <-f.ctx.Done():
			f.forget(a)
			return nil, errors.New("shard front closed")
		case <-t.C:
			if err := a.resend(ctx); err != nil {
				f.forget(a)
				return nil, err
			}
			continue
		}
		break
	}
	f.forget(a)
	f.m.wait.Observe(time.Since(start).Seconds())
	a.dec = make([]stream.Decision, len(a.waits))
	for i, w := range a.waits {
		a.dec[i] = join(w.doc, w.answers, w.home)
	}
	sameBatchClusters(a.docs, a.dec, func(i int) bool { return a.waits[i].fixed })
	if f.log.Core().Enabled(zap.DebugLevel) {
		for i, w := range a.waits {
			f.log.Debug("joined", zap.String("source", w.doc.Source), zap.String("id", w.doc.ID),
				zap.String("key", fmt.Sprintf("%x", a.key)), zap.Uint8("verdict", uint8(a.dec[i].Verdict)),
				zap.String("of", a.dec[i].Of), zap.Uint64("cluster", a.dec[i].Cluster), zap.Bool("replayed", a.dec[i].Replayed),
				zap.String("answers", answersString(w)))
		}
	}
	return a.dec, nil
}

// answersString renders a document's shard answers for the debug log.
func answersString(w *waiting) string {
	var b strings.Builder
	for s := range w.answers {
		d := &w.answers[s]
		fmt.Fprintf(&b, "s%d:%d/%s/%d/%d/%v ", s, d.Verdict, d.Of, d.OfPos, d.Cluster, d.Replayed)
	}
	return b.String()
}

// sameBatchClusters gives each duplicate of a document of its own batch
// that document's joined cluster, unless fixed says its shards have fixed
// its cluster already (it went out before: a replay repeats it). A shard
// holds back a duplicate's answer until its original is settled, except
// when both came in one batch (the original settles only once the batch is
// joined): there the shard answers with the cluster it holds, which the
// join replaces. A batch's documents are in log order, so an original's
// decision is final before its duplicates'. The original is found by id,
// the latest of the batch's earlier documents with it.
func sameBatchClusters(docs []state.Doc, dec []stream.Decision, fixed func(i int) bool) {
	at := make(map[string]int, len(docs))
	for i := range docs {
		if j, ok := at[dec[i].Of]; ok && !fixed(i) {
			dec[i].Cluster = dec[j].Cluster
		}
		at[docs[i].ID] = i
	}
}

// holdsID reports whether a document of the batch has this id.
func (a *asked) holdsID(id string) bool {
	return slices.ContainsFunc(a.docs, func(d state.Doc) bool { return d.ID == id })
}

// resend writes again the probes whose answers have not come.
func (a *asked) resend(ctx context.Context) error {
	a.f.mu.Lock()
	msgs, n := a.probes(func(w *waiting) bool { return w.left > 0 })
	shards, first := a.unanswered()
	a.f.mu.Unlock()
	a.f.log.Warn("shards have not answered in index.answer_timeout; sending the probes again",
		zap.Int("probes", n), zap.Ints("shards", shards), zap.String("first_document", first),
		zap.Duration("answer_timeout", a.f.cfg.AnswerTimeout))
	if err := a.f.send(ctx, msgs); err != nil {
		return err
	}
	a.f.m.probes.Add(float64(n))
	a.f.m.resent.Add(float64(n))
	return nil
}

// unanswered returns the shards that have not answered every document of
// the batch, and the input position of the first document waiting; f.mu
// must be held.
func (a *asked) unanswered() (shards []int, first string) {
	for _, w := range a.waits {
		for s, got := range w.got {
			if got {
				continue
			}
			if first == "" {
				first = w.doc.Source
			}
			if !slices.Contains(shards, s) {
				shards = append(shards, s)
			}
		}
	}
	slices.Sort(shards)
	return shards, first
}

// Settle implements stream.Asked: a final in the sequence log for every
// document of a sharded index (S ≥ 2), carrying the joined decision where
// its home answered otherwise, so that its home's stored record carries the
// document's real verdict and cluster, and the answers its home holds back
// until the documents they match are settled can go out (docs/scale-out.md,
// "Clusters"). With one shard a document needs one only if the batch changed
// its decision (sameBatchClusters): else the shard's answer is its decision.
func (a *asked) Settle(ctx context.Context) error {
	pk := newPacker(wireVersion, kindSettled)
	changed := 0
	for i, w := range a.waits {
		fin := final{source: w.doc.Source, hash: w.doc.ContentHash, dec: a.dec[i]}
		fin.dec.Replayed, fin.dec.Pos = false, 0 // a final settles the stored fields; the position is the home's
		fin.changed = !sameDecision(&w.answers[w.home], &fin.dec)
		if len(w.answers) < 2 && !fin.changed {
			continue
		}
		if !fin.changed {
			fin.dec = stream.Decision{}
		}
		pk.add(func(dst []byte) []byte { return appendFinalBody(dst, &fin) })
		changed += btoi(fin.changed)
	}
	a.f.m.finals.Add(float64(changed))
	return a.f.send(ctx, a.f.messages(pk))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sameDecision reports whether a shard's stored answer already says what the
// joined decision says.
func sameDecision(a, b *stream.Decision) bool {
	return a.Verdict == b.Verdict && a.Of == b.Of && a.Cluster == b.Cluster &&
		float32(a.Similarity) == float32(b.Similarity) && a.OfPos == b.OfPos
}

// join is a document's decision from its shards' answers (answers[s] is
// shard s's; home stores the document): an exact copy if any shard found one
// (its home holds every exact copy of it), else the match earliest in the
// sequence log, else Unique with the cluster the document founds. Its home's
// answer names the document's first position in the log (Pos), and a match
// another shard found at or after it, a document appended since, does not
// count: the other shards may answer a later append of the document (a
// replayed input record), or some an earlier one and some a later (a shard
// taken over answers again from its committed offset), and the document is
// decided as at its first position whichever they answer. Between matches
// of one original its home's answer wins: a replayed document's home answers
// with the decision that went out, the original's own shard with the cluster
// it holds now, which a late final may have changed since. It is Replayed
// when its home's answer is a stored one.
func join(doc *state.Doc, answers []stream.Decision, home int) stream.Decision {
	var best *stream.Decision
	first := &answers[home]
	replayed := first.Replayed
	if first.Verdict.Duplicate() {
		best = first
	}
	for i := range answers {
		a := &answers[i]
		if i == home || !a.Verdict.Duplicate() || (first.Pos != 0 || replayed) && a.OfPos >= first.Pos {
			continue
		}
		aExact, bestExact := a.Verdict == stream.ExactDuplicate, best != nil && best.Verdict == stream.ExactDuplicate
		if best == nil || aExact && !bestExact || aExact == bestExact && stream.EarlierOrigin(a, best) {
			best = a
		}
	}
	if best == nil {
		return stream.Decision{Verdict: stream.Unique, Cluster: stream.ClusterOf(doc.Source), Replayed: replayed}
	}
	d := *best
	d.Replayed = replayed
	return d
}

// readAnswers starts the reader of answer partition p unless it runs: from
// the partition's end as it is now, before any probe of this front for p
// was sent, so every answer to this front's probes is read.
func (f *Front) readAnswers(ctx context.Context, p int) error {
	f.mu.Lock()
	if r, ok := f.readers[p]; ok {
		r.used = time.Now()
		f.mu.Unlock()
		return nil
	}
	f.mu.Unlock()
	resp, err := f.client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{f.answer: {kafka.LastOffsetOf(p)}}})
	if err != nil {
		return fmt.Errorf("read the end of %s partition %d: %w", f.answer, p, err)
	}
	var end int64 = -1
	for _, po := range resp.Topics[f.answer] {
		if po.Partition == p && po.Error == nil {
			end = po.LastOffset
		}
	}
	if end < 0 {
		return fmt.Errorf("read the end of %s partition %d: no offset in the answer", f.answer, p)
	}
	cfg := f.reader
	cfg.Partition = p
	r := kafka.NewReader(cfg)
	if err := r.SetOffset(end); err != nil {
		return errors.Join(err, r.Close())
	}
	ctx, stop := context.WithCancel(f.ctx)
	f.mu.Lock()
	f.readers[p] = &answerReader{stop: stop, used: time.Now()}
	f.mu.Unlock()
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.readLoop(ctx, r, p)
	}()
	return nil
}

// readLoop delivers the answers of one partition until ctx ends (the reader
// stopped, or the front closed), then closes the reader.
func (f *Front) readLoop(ctx context.Context, r *kafka.Reader, p int) {
	defer func() {
		if err := r.Close(); err != nil {
			f.log.Warn("closing an answer reader", zap.Int("partition", p), zap.Error(err))
		}
	}()
	for {
		m, err := r.ReadMessage(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			f.log.Warn("read answers failed, retrying", zap.Int("partition", p), zap.Error(err))
			time.Sleep(100 * time.Millisecond)
			continue
		}
		as, ns, err := decodeAnswers(m.Value)
		if err != nil {
			f.log.Error("skipping a malformed answer record", zap.Int("partition", p), zap.Int64("offset", m.Offset), zap.Error(err))
			continue
		}
		f.deliver(as, ns)
	}
}

// deliver records a shard's answer for a document in flight, in every batch
// that holds it (a record fetched again after a rebalance may be in two).
// Answers for documents not in flight (another front's on this partition
// before a rebalance, a zombie owner's) and repeated answers are ignored.
func (f *Front) deliver(as []answer, ns []nothing) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range as {
		a := &as[i]
		ws, ok := f.pending[docKey{a.source, a.hash}]
		if !ok {
			f.m.stale.Inc()
			continue
		}
		for _, w := range ws {
			w.record(a)
		}
	}
	for i := range ns {
		f.deliverNothing(&ns[i])
	}
}

// deliverNothing records a shard's answer that it has nothing for
// documents of a batch in flight: that batch's own probes asked it. Its
// home's answer is always one document's (it stores the document).
func (f *Front) deliverNothing(n *nothing) {
	b, ok := f.batches[n.key]
	if !ok {
		f.m.stale.Add(float64(len(n.indexes)))
		return
	}
	a := answer{shard: n.shard, dec: stream.Decision{Verdict: stream.Unique}}
	for _, i := range n.indexes {
		if i < len(b.waits) && b.waits[i].home != n.shard {
			b.waits[i].record(&a)
		}
	}
}

// record takes a shard's answer unless that shard has answered already, or
// the answer is provisional and its original is not of this batch: such an
// answer went to another batch holding the same document (a record fetched
// twice across a rebalance), whose front corrects it as it joins, and this
// batch waits for the answer to its own probe.
func (w *waiting) record(a *answer) {
	if a.provisional && !w.batch.holdsID(a.dec.Of) {
		return
	}
	if a.shard >= len(w.got) || w.got[a.shard] {
		return
	}
	w.answers[a.shard], w.got[a.shard] = a.dec, true
	w.fixed = w.fixed && !a.provisional && (a.shard != w.home || a.dec.Replayed)
	if w.left--; w.left == 0 {
		if w.batch.left--; w.batch.left == 0 {
			close(w.batch.done)
		}
	}
}
