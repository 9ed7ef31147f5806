package stream_test

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/state"
)

var (
	recordSources = flag.Int("record.sources", 800, "Reuters stories read by TestRecordModeCorpus (docs/bench/sketches.md)")
	recordNumPerm = flag.Int("record.num_perm", 0, "record.num_perm of TestRecordModeCorpus; 0 → the default")
)

func recordHarness(t *testing.T) *harness {
	h := newHarness(t, 1) // one partition: arrival order is production order
	h.record.Enabled = true
	h.record.EnsureDefaults()
	return h
}

func jsonMessage(t *testing.T, key string, v any) kafka.Message {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Message{Key: []byte(key), Value: b}
}

// TestRecordModeVerdicts runs hand-written publication records through the
// broker: near-copies in other spellings are found, records that share only a
// title (or fewer than min_fields fields) are not, wrong types are
// dead-lettered, and the state refuses another field configuration.
func TestRecordModeVerdicts(t *testing.T) {
	h := recordHarness(t)
	abstract := "we describe a filter that reads every page decides whether an earlier page is a near copy and writes it tagged"
	title := "A Streaming Filter for Near-Duplicate Documents in Kafka Pipelines"
	msgs := []kafka.Message{
		jsonMessage(t, "a", map[string]any{"id": "a", "title": title, "authors": []string{"John Smith", "Anna Doe"}, "abstract": abstract, "year": 2001}),
		// Same title, other authors and year: not a duplicate.
		jsonMessage(t, "b", map[string]any{"id": "b", "title": title, "authors": []string{"K. Brown"}, "year": 1995}),
		// Authors as one string, reversed, with initials; a typo; no abstract;
		// the year as a date: a near-duplicate of a.
		jsonMessage(t, "c", map[string]any{"id": "c", "title": strings.Replace(title, "Streaming", "Straeming", 1),
			"authors": "Doe, A.; SMITH J", "abstract": nil, "year": "2001-05-03"}),
		// Authors reordered, same everything else: equal after normalisation.
		jsonMessage(t, "d", map[string]any{"id": "d", "title": title, "authors": []string{"Doe, Anna", "J. Smith"}, "abstract": abstract, "year": "2001"}),
		// A title alone (one field, min_fields 2), twice: never a duplicate.
		jsonMessage(t, "e", map[string]any{"id": "e", "title": title}),
		jsonMessage(t, "f", map[string]any{"id": "f", "title": title}),
		// Cyrillic authors in two spellings, nested nothing else.
		jsonMessage(t, "g", map[string]any{"id": "g", "title": "Кластеры почти одинаковых документов", "authors": []string{"Иванов И. И.", "Пётр Сидоров"}, "year": 2010}),
		jsonMessage(t, "h", map[string]any{"id": "h", "title": "Кластеры почти одинаковых документов", "authors": []string{"Сидоров, Петр", "И.И. Иванов"}, "year": "2010"}),
		// Bad input.
		jsonMessage(t, "bad-authors", map[string]any{"id": "x1", "title": title, "authors": 5}),
		jsonMessage(t, "bad-author", map[string]any{"id": "x2", "title": title, "authors": []any{"A. B", 7}}),
		jsonMessage(t, "bad-year", map[string]any{"id": "x3", "title": title, "year": "n.d."}),
		jsonMessage(t, "no-fields", map[string]any{"id": "x4", "body": "a page, not a record"}),
		{Key: []byte("not-json"), Value: []byte("plain text")},
	}
	h.produce(msgs...)
	if _, err := h.runToEnd(nil); err != nil {
		t.Fatal(err)
	}
	version := h.method().Version()
	got := map[string]output{}
	for _, o := range h.readAll(topicOut) {
		got[o.key] = o
		if o.headers["dedup.sketch"] != version {
			t.Errorf("%s: dedup.sketch %q, want %q", o.key, o.headers["dedup.sketch"], version)
		}
	}
	f := func(key, verdict, of string) {
		t.Helper()
		o, ok := got[key]
		if !ok || o.headers["dedup.verdict"] != verdict || o.headers["dedup.of"] != of {
			t.Errorf("%s: verdict %q of %q (similarity %s), want %q of %q", key, o.headers["dedup.verdict"],
				o.headers["dedup.of"], o.headers["dedup.similarity"], verdict, of)
		}
	}
	f("a", "unique", "")
	f("b", "unique", "")
	f("c", "near_duplicate", "a")
	f("d", "exact_duplicate", "a")
	f("e", "unique", "")
	f("f", "unique", "")
	f("g", "unique", "")
	f("h", "exact_duplicate", "g")
	dlq := map[string]string{}
	for _, o := range h.readAll(topicDLQ) {
		dlq[o.key] = o.headers["__connect.errors.exception.class.name"]
	}
	for key, class := range map[string]string{"bad-authors": "WrongFieldType", "bad-author": "WrongFieldType",
		"bad-year": "InvalidFieldValue", "no-fields": "MissingField", "not-json": "MalformedJSON"} {
		if dlq[key] != "dedupstream."+class {
			t.Errorf("dead letter %s: class %q, want %s", key, dlq[key], class)
		}
	}
	if len(got)+len(dlq) != len(msgs) {
		t.Errorf("%d forwarded + %d dead-lettered of %d records", len(got), len(dlq), len(msgs))
	}

	// The state was built with these fields: other fields are refused.
	h.record.Fields = append(h.record.Fields, lsh.RecordField{Name: "doi", Path: "doi", Kind: lsh.KindExact, Weight: 1})
	other := h.method()
	st, err := state.Open(h.stateOptions(other))
	if err == nil {
		st.Close()
		t.Fatalf("state of %q opened with %q", version, other.Version())
	}
}

// recordScore is record mode's accuracy on labelled publications: a record
// should be flagged when an earlier record has its origin; a flag is right
// when the record it names has the same origin.
type recordScore struct {
	records, shouldFlag, flagged, rightFlags, found int
	sameTitle, sameTitleFlagged                     int            // originals that reuse an earlier title
	missedBy                                        map[string]int // edits of copies not found
	missed                                          []string       // ids of copies not found
}

func scoreRecords(pubs []gen.Publication, out []output) recordScore {
	origin := map[string]string{}
	for _, p := range pubs {
		origin[p.ID] = p.Origin
	}
	verdict := map[string]output{}
	for _, o := range out {
		verdict[o.key] = o
	}
	s := recordScore{records: len(pubs), missedBy: map[string]int{}}
	seen := map[string]bool{} // origins that have arrived
	for _, p := range pubs {
		o := verdict[p.ID]
		v := o.headers["dedup.verdict"]
		flagged := v == "near_duplicate" || v == "exact_duplicate"
		if flagged {
			s.flagged++
			if origin[o.headers["dedup.of"]] == p.Origin {
				s.rightFlags++
			}
		}
		if p.Edits == "same-title" {
			s.sameTitle++
			if flagged {
				s.sameTitleFlagged++
			}
		}
		if seen[p.Origin] {
			s.shouldFlag++
			if flagged && origin[o.headers["dedup.of"]] == p.Origin {
				s.found++
			} else {
				s.missedBy[p.Edits]++
				s.missed = append(s.missed, p.ID)
			}
		}
		seen[p.Origin] = true
	}
	return s
}

func (s recordScore) precision() float64 { return float64(s.rightFlags) / float64(max(1, s.flagged)) }
func (s recordScore) recall() float64    { return float64(s.found) / float64(max(1, s.shouldFlag)) }

// TestRecordModeCorpus runs generated publications (titles and abstracts
// from Reuters-21578, authors from gen's name lists, near-copies with
// reordered or reformatted authors, title typos, missing abstracts and
// reformatted years) through the broker in record mode and checks precision
// and recall against the generator's labels. Run with -v for the figures;
// -record.sources N for a larger corpus.
func TestRecordModeCorpus(t *testing.T) {
	pubs := recordPubs(t)
	h := recordHarness(t)
	h.record.NumPerm = *recordNumPerm
	h.record.EnsureDefaults()
	msgs := make([]kafka.Message, len(pubs))
	for i, p := range pubs {
		msgs[i] = jsonMessage(t, p.ID, p.Record)
	}
	h.produce(msgs...)
	c, err := h.runToEnd(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Invalid != 0 {
		t.Errorf("%d generated records were dead-lettered", c.Invalid)
	}
	out := h.readAll(topicOut)
	s := scoreRecords(pubs, out)
	logMisses(t, h, pubs, msgs, out, s.missed)
	t.Logf("%d records, %d copies of an earlier record: flagged %d, right %d; precision %.4f, recall %.4f; missed by edits %v; same-title originals %d, flagged %d",
		s.records, s.shouldFlag, s.flagged, s.rightFlags, s.precision(), s.recall(), s.missedBy, s.sameTitle, s.sameTitleFlagged)
	// Bars: see docs/bench/sketches.md "Record mode" for the measured figures.
	if s.precision() < 0.99 || s.recall() < 0.97 {
		t.Errorf("precision %.4f (want ≥ 0.99), recall %.4f (want ≥ 0.97)", s.precision(), s.recall())
	}
}

// recordPubs generates the publications of TestRecordModeCorpus from the
// first -record.sources Reuters-21578 stories.
func recordPubs(t *testing.T) []gen.Publication {
	t.Helper()
	var sources []gen.PubSource
	err := corpus.Read(corpusPath(t, "reuters21578.tar.gz"), *recordSources, func(d corpus.Doc) error {
		sources = append(sources, gen.PubSource{Title: d.Title, Body: d.Body})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return gen.Publications(sources, gen.PubOptions{Seed: 5})
}
