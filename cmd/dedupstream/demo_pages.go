package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
)

// demoSet is the demo's input: the messages to produce and what each one is.
type demoSet struct {
	source string
	msgs   []kafka.Message
	truth  map[string]gen.Page // by id: origin and kind of every page
}

func (s demoSet) Len() int { return len(s.msgs) }

// demoPages builds the input: generated pages, or a corpus wrapped as pages, plus
// a handful of bad records that must end on the dead-letter topic.
func demoPages(o demoOptions) (demoSet, error) {
	set := demoSet{truth: make(map[string]gen.Page)}
	g := gen.New(gen.Options{Seed: o.seed, EditRate: 0.01}) // 1% of words edited: resemblance ≈ 0.9
	if o.corpus == "" {
		set.source = "generated pages"
		for i := 0; i < o.pages; i++ {
			set.add(g.Next())
		}
	} else {
		set.source = o.corpus
		err := corpus.Read(o.corpus, o.limit, func(d corpus.Doc) error {
			for _, p := range g.Wrap(d.Title, d.Body, d.ID) {
				set.add(p)
			}
			return nil
		})
		if err != nil {
			return set, err
		}
	}
	set.msgs = append(set.msgs, badRecords()...)
	return set, nil
}

// add appends p as a message: every third page as a raw value keyed by id,
// the rest as JSON records (a plain-text page in body, as eval.Input puts
// it), so both decode paths run.
func (s *demoSet) add(p gen.Page) {
	s.truth[p.ID] = p
	if len(s.msgs)%3 == 2 {
		s.msgs = append(s.msgs, kafka.Message{Key: []byte(p.ID), Value: []byte(p.HTML)})
		return
	}
	s.msgs = append(s.msgs, kafka.Message{Key: []byte(p.ID), Value: eval.Input(p).JSON()})
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

// produce writes msgs to topic on brokers (comma-separated host:port) and
// waits for the brokers' acknowledgement.
func produce(ctx context.Context, brokers, topic string, msgs []kafka.Message) error {
	return produceWith(ctx, brokers, topic, stream.Security{}, msgs)
}

// produceWith is produce over connections secured by sec.
func produceWith(ctx context.Context, brokers, topic string, sec stream.Security, msgs []kafka.Message) error {
	w := &kafka.Writer{
		Addr: kafka.TCP(strings.Split(brokers, ",")...), Topic: topic, Balancer: &kafka.Hash{},
		BatchSize: 500, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireAll,
		Transport: sec.Transport("dedupstream-tools"),
	}
	defer w.Close()
	for i := 0; i < len(msgs); i += 500 {
		if err := w.WriteMessages(ctx, msgs[i:min(i+500, len(msgs))]...); err != nil {
			return fmt.Errorf("produce to %s: %w", topic, err)
		}
	}
	return nil
}
