package demo

import (
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
)

// Set is the demo's input: the messages to produce and what each one is.
type Set struct {
	Source string              // "generated pages" or the corpus's path
	Msgs   []kafka.Message     // the records to produce, the bad ones last
	Truth  map[string]gen.Page // by id: origin and kind of every page
}

// Len is the number of records.
func (s Set) Len() int { return len(s.Msgs) }

// Options say what pages Pages makes.
type Options struct {
	Pages  int    // generated pages, without Corpus
	Corpus string // real documents to wrap as pages (corpus.Read)
	Limit  int    // documents to read from Corpus (0: all)
	Seed   uint64 // of the page generator
}

// Pages builds the input: generated pages, or a corpus wrapped as pages, plus
// a handful of bad records that must end on the dead-letter topic.
func Pages(o Options) (Set, error) {
	set := Set{Truth: make(map[string]gen.Page)}
	g := gen.New(gen.Options{Seed: o.Seed, EditRate: 0.01}) // 1% of words edited: resemblance ≈ 0.9
	if o.Corpus == "" {
		set.Source = "generated pages"
		for i := 0; i < o.Pages; i++ {
			set.add(g.Next())
		}
	} else {
		set.Source = o.Corpus
		err := corpus.Read(o.Corpus, o.Limit, func(d corpus.Doc) error {
			for _, p := range g.Wrap(d.Title, d.Body, d.ID) {
				set.add(p)
			}
			return nil
		})
		if err != nil {
			return set, err
		}
	}
	set.Msgs = append(set.Msgs, badRecords()...)
	return set, nil
}

// add appends p as a message: every third page as a raw value keyed by id,
// the rest as JSON records (a plain-text page in body, as eval.Input puts
// it), so both decode paths run.
func (s *Set) add(p gen.Page) {
	s.Truth[p.ID] = p
	if len(s.Msgs)%3 == 2 {
		s.Msgs = append(s.Msgs, kafka.Message{Key: []byte(p.ID), Value: []byte(p.HTML)})
		return
	}
	s.Msgs = append(s.Msgs, kafka.Message{Key: []byte(p.ID), Value: eval.Input(p).JSON()})
}

// badRecords are inputs a real feed delivers sooner or later.
func badRecords() []kafka.Message {
	return []kafka.Message{
		{Key: []byte("bad-empty"), Value: nil},
		{Key: []byte("bad-binary"), Value: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		{Key: []byte("bad-utf8"), Value: []byte("\xe9\x9c\xc3\xb1\xd2\x8b\xfa\x81\xfe: bytes in no encoding, not UTF-8")},
		{Key: []byte("bad-json"), Value: []byte(`{"id": "bad-json", "html": 42}`)},
		{Key: []byte("bad-oversized"), Value: []byte(strings.Repeat("big ", 80000))},
		{Key: []byte("bad-boilerplate"), Value: []byte("<html><body><nav>Home | News | About</nav><footer>© 2026</footer></body></html>")},
	}
}

// StampInOrder gives the records increasing timestamps, a millisecond apart,
// as a crawler stamps pages when it fetches them: the sharded index orders
// pages by timestamp, and one write would otherwise stamp them all alike.
func StampInOrder(msgs []kafka.Message) {
	t0 := time.Now().Add(-time.Duration(len(msgs)) * time.Millisecond)
	for i := range msgs {
		msgs[i].Time = t0.Add(time.Duration(i) * time.Millisecond)
	}
}
