package prepare

import (
	"sync"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
)

// Item is one input record after decode, clean and sketch.
type Item struct {
	Msg       *kafka.Message
	Rec       Record      // without its Body, which is read only while preparing
	Err       *InputError // non-nil: the record is invalid
	Hash      uint64      // content hash of the cleaned text
	Sketch    []byte      // the Method's encoded sketch
	Keys      []uint64    // its index keys (per band, or a set; see lsh.Method.KeyBands)
	Truncated bool        // the cleaner hit its token cap
	KeysCut   bool        // the method hit its cap on keys per document
}

// Preparer decodes, cleans and sketches records. It is safe for concurrent
// use; each goroutine brings its own Scratch.
type Preparer struct {
	dec     decoder
	cleaner *clean.Cleaner
	method  lsh.Method
	// minFields is the record mode's lsh.RecordMethod.MinFields; 0 for pages.
	minFields int
}

// New builds the Preparer for m; a Method with record fields
// (lsh.RecordMethod) switches decoding to record mode.
func New(cfg Config, cl *clean.Cleaner, m lsh.Method) *Preparer {
	p := &Preparer{dec: decoder{cfg: cfg}, cleaner: cl, method: m}
	if rm, ok := m.(recordMethod); ok {
		p.dec.record, p.minFields = rm.Fields(), rm.MinFields()
	}
	return p
}

// Method returns the Method the Preparer sketches with.
func (p *Preparer) Method() lsh.Method { return p.method }

// Scratch holds per-worker buffers reused across records. The zero value is
// ready to use.
type Scratch struct {
	body   []byte // a JSON record's body, unescaped
	text   []byte
	sketch lsh.Scratch
}

// Text returns the cleaned text (record mode: the record text) of the last
// record Prepare read with s. It aliases s: the next Prepare overwrites it.
func (s *Scratch) Text() []byte { return s.text }

// Prepare decodes, cleans and sketches one message: the Item has its content
// hash, sketch and index keys, or the InputError that dead-letters it.
func (p *Preparer) Prepare(m *kafka.Message, s *Scratch) Item {
	it := Item{Msg: m}
	rec, ierr := p.dec.decodeInto(m, &s.body)
	if ierr != nil {
		it.Err = ierr
		return it
	}
	it.Rec = rec
	if rec.Fields != nil {
		return p.prepareRecord(it, s)
	}
	var res clean.Result
	s.text, res = CleanText(s.text[:0], p.cleaner, rec)
	it.Rec.Body = nil // it may alias s.body, which the next record reuses
	if res.Tokens == 0 {
		it.Err = &InputError{Stage: StageClean, Class: "dedupstream.NoText", Msg: "no words left after cleaning"}
		return it
	}
	it.Truncated = res.Truncated
	it.Hash = lsh.ContentHash(s.text)
	it.Sketch, it.Keys = p.method.Sketch(&s.sketch, s.text, nil, nil)
	it.KeysCut = s.sketch.KeysCut() > 0
	return it
}

// CleanText appends the cleaned text of a page record's body to dst: as
// markup when rec.HTML is set, else as plain text.
func CleanText(dst []byte, cl *clean.Cleaner, rec Record) ([]byte, clean.Result) {
	if rec.HTML {
		return cl.HTML(dst, rec.Body)
	}
	return cl.Text(dst, rec.Body)
}

// RawPage is the Record decode makes of a raw value that is UTF-8 already:
// the page itself, markup when it looks like markup. It is the one place a
// page's bytes are judged HTML or text; a JSON record says so by its field.
func RawPage(body []byte) Record {
	return Record{Body: body, HTML: clean.LooksLikeHTML(body)}
}

// PrepareValue prepares one message value on its own Scratch, for tools
// that read a page or a record from a file: its cleaned text (record mode: its
// record text) and sketch, or the InputError that would dead-letter it.
func (p *Preparer) PrepareValue(value []byte) (text, sketch []byte, err error) {
	var s Scratch
	it := p.Prepare(&kafka.Message{Value: value}, &s)
	if it.Err != nil {
		return nil, nil, it.Err
	}
	return s.text, it.Sketch, nil
}

// PrepareAll prepares msgs on up to workers goroutines, keeping input order.
// pool holds *Scratch. The items refer to copies of msgs (Batch.Wait
// returns them).
func (p *Preparer) PrepareAll(msgs []kafka.Message, workers int, pool *sync.Pool) []Item {
	w := p.StartWorkers(min(workers, len(msgs)), len(msgs), pool)
	defer w.Stop()
	b := w.Batch(len(msgs))
	for _, m := range msgs {
		b.Add(m)
	}
	_, items := b.Wait()
	return items
}

// Workers prepare the records handed to them (Submit, or a Batch's Add) on
// goroutines that live until Stop: the pipeline keeps one set for a run,
// through which every record is prepared as it is fetched.
type Workers struct {
	jobs chan job
	wg   sync.WaitGroup
}

// job is a record for a worker: it sets *item to the record's Item and
// calls done.Done.
type job struct {
	msg  *kafka.Message
	item *Item
	done *sync.WaitGroup
}

// StartWorkers starts n workers (at least one), each with a Scratch from
// pool (which holds *Scratch). Up to queue records wait for them before
// Submit blocks.
func (p *Preparer) StartWorkers(n, queue int, pool *sync.Pool) *Workers {
	w := &Workers{jobs: make(chan job, queue)}
	for range max(n, 1) {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			s := pool.Get().(*Scratch)
			defer pool.Put(s)
			for j := range w.jobs {
				*j.item = p.Prepare(j.msg, s)
				j.done.Done()
			}
		}()
	}
	return w
}

// Submit hands the record at m to a worker, which sets *item to its Item
// (Preparer.Prepare) and then calls done.Done; done.Add(1) is the caller's,
// before. m and item must stay where they are until then.
func (w *Workers) Submit(m *kafka.Message, item *Item, done *sync.WaitGroup) {
	w.jobs <- job{m, item, done}
}

// Stop waits for the records handed over to be prepared, then ends the
// workers. Nothing may be handed to them after: no Submit, no Add.
func (w *Workers) Stop() {
	close(w.jobs)
	w.wg.Wait()
}

// Batch is a batch being prepared while it is gathered: each record added is
// handed to the workers at once, so that by the time the batch is complete
// most of it is prepared (the pipeline's fetch adds records as they arrive,
// for up to batch.linger). Add and Wait are for one goroutine; Wait gives
// the batch's buffers back, so every Batch that Workers.Batch makes is
// waited for.
//
// The records and items are kept in chunks of chunkLen, taken from a pool
// as records arrive and given back once Wait has copied them out: a batch
// that goes with a fifth of batch.size (as at moderate rates) allocates room
// for what it holds, not for batch.size.
type Batch struct {
	w      *Workers
	chunks []*chunk // the first n records and, until Wait copies them out, their items
	n      int
	size   int
	done   sync.WaitGroup // the added records are prepared
}

const chunkLen = 64

type chunk struct {
	msgs  [chunkLen]kafka.Message
	items [chunkLen]Item
}

var chunks = sync.Pool{New: func() any { return new(chunk) }}

// Batch returns a batch of up to size records, prepared by w.
func (w *Workers) Batch(size int) *Batch {
	return &Batch{w: w, size: size, chunks: make([]*chunk, (size+chunkLen-1)/chunkLen)}
}

// Add adds m, the next record, and returns how many the batch holds. A
// batch holds at most the size Workers.Batch was given.
func (b *Batch) Add(m kafka.Message) int {
	if b.n == b.size {
		panic("prepare: Batch.Add beyond the batch's size")
	}
	c, i := b.n/chunkLen, b.n%chunkLen
	if i == 0 {
		b.chunks[c] = chunks.Get().(*chunk)
	}
	ch := b.chunks[c]
	ch.msgs[i] = m
	b.done.Add(1)
	b.w.Submit(&ch.msgs[i], &ch.items[i], &b.done)
	b.n++
	return b.n
}

// Wait waits until the added records are prepared and returns them and their
// items, in the order added.
func (b *Batch) Wait() ([]kafka.Message, []Item) {
	b.done.Wait()
	msgs, items := make([]kafka.Message, b.n), make([]Item, b.n)
	for c := 0; c*chunkLen < b.n; c++ {
		ch, k := b.chunks[c], min(chunkLen, b.n-c*chunkLen)
		copy(msgs[c*chunkLen:], ch.msgs[:k])
		copy(items[c*chunkLen:], ch.items[:k])
		clear(ch.msgs[:k]) // the pool holds no records
		clear(ch.items[:k])
		chunks.Put(ch)
	}
	b.chunks = nil
	for i := range items {
		items[i].Msg = &msgs[i]
	}
	return msgs, items
}

// prepareRecord normalises and sketches a structured record. A record with
// fewer than min_fields fields can never be compared with enough fields, so
// its content hash also mixes in its input position: an equal record stays
// unique, while a replay of the same message is still recognised.
func (p *Preparer) prepareRecord(it Item, s *Scratch) Item {
	var present int
	s.text, present = recordText(s.text[:0], p.cleaner, p.dec.record, it.Rec.Fields)
	if present == 0 {
		it.Err = &InputError{Stage: StageClean, Class: "dedupstream.NoText", Msg: "no field has words left after cleaning"}
		return it
	}
	it.Sketch, it.Keys = p.method.Sketch(&s.sketch, s.text, nil, nil)
	n := len(s.text)
	if present < p.minFields {
		s.text = append(append(s.text, 0), SourceOf(it.Msg)...)
	}
	it.Hash = lsh.ContentHash(s.text)
	s.text = s.text[:n]
	return it
}
