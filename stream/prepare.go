package stream

import (
	"sync"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
)

// item is one input record after decode, clean and sketch.
type item struct {
	msg       *kafka.Message
	rec       Record
	err       *InputError // non-nil: the record is invalid
	hash      uint64      // content hash of the cleaned text
	sketch    []byte      // the Method's encoded sketch
	keys      []uint64    // its index keys (per band, or a set; see lsh.Method.KeyBands)
	truncated bool        // the cleaner hit its token cap
	keysCut   bool        // the method hit its cap on keys per document
}

// preparer decodes, cleans and sketches records. It is safe for concurrent use;
// each goroutine brings its own scratch.
type preparer struct {
	dec     decoder
	cleaner *clean.Cleaner
	method  lsh.Method
	// minFields is the record mode's lsh.RecordMethod.MinFields; 0 for pages.
	minFields int
}

// newPreparer builds the preparer for m; a Method with record fields
// (lsh.RecordMethod) switches decoding to record mode.
func newPreparer(cfg DecodeConfig, cl *clean.Cleaner, m lsh.Method) preparer {
	p := preparer{dec: decoder{cfg: cfg}, cleaner: cl, method: m}
	if rm, ok := m.(recordMethod); ok {
		p.dec.record, p.minFields = rm.Fields(), rm.MinFields()
	}
	return p
}

// scratch holds per-worker buffers reused across records.
type scratch struct {
	text   []byte
	sketch lsh.Scratch
}

func (p *preparer) prepare(m *kafka.Message, s *scratch) item {
	it := item{msg: m}
	rec, ierr := p.dec.decode(m, clean.LooksLikeHTML)
	if ierr != nil {
		it.err = ierr
		return it
	}
	it.rec = rec
	if rec.Fields != nil {
		return p.prepareRecord(it, s)
	}
	var res clean.Result
	if rec.HTML {
		s.text, res = p.cleaner.HTML(s.text[:0], rec.Body)
	} else {
		s.text, res = p.cleaner.Text(s.text[:0], rec.Body)
	}
	if res.Tokens == 0 {
		it.err = &InputError{Stage: StageClean, Class: "dedupstream.NoText", Msg: "no words left after cleaning"}
		return it
	}
	it.truncated = res.Truncated
	it.hash = lsh.ContentHash(s.text)
	it.sketch, it.keys = p.method.Sketch(&s.sketch, s.text, nil, nil)
	it.keysCut = s.sketch.KeysCut() > 0
	return it
}

// prepareAll prepares msgs on up to workers goroutines, keeping input order.
func (p *preparer) prepareAll(msgs []kafka.Message, workers int, pool *sync.Pool) []item {
	items := make([]item, len(msgs))
	if workers > len(msgs) {
		workers = len(msgs)
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := pool.Get().(*scratch)
			defer pool.Put(s)
			for i := w; i < len(msgs); i += workers {
				items[i] = p.prepare(&msgs[i], s)
			}
		}(w)
	}
	wg.Wait()
	return items
}

// prepareRecord normalises and sketches a structured record. A record with
// fewer than min_fields fields can never be compared with enough fields, so
// its content hash also mixes in its input position: an equal record stays
// unique, while a replay of the same message is still recognised.
func (p *preparer) prepareRecord(it item, s *scratch) item {
	var present int
	s.text, present = recordText(s.text[:0], p.cleaner, p.dec.record, it.rec.Fields)
	if present == 0 {
		it.err = &InputError{Stage: StageClean, Class: "dedupstream.NoText", Msg: "no field has words left after cleaning"}
		return it
	}
	it.sketch, it.keys = p.method.Sketch(&s.sketch, s.text, nil, nil)
	n := len(s.text)
	if present < p.minFields {
		s.text = append(append(s.text, 0), SourceOf(it.msg)...)
	}
	it.hash = lsh.ContentHash(s.text)
	s.text = s.text[:n]
	return it
}
