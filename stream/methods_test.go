package stream_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
)

// TestMethodsEndToEnd runs generated pages through the broker, the pipeline
// and on-disk state under each sketch method, on one partition so that every
// original is read before its copies. Exact copies and mirrors (the same
// text in another template) must all join their original's cluster; edited
// copies must be found by the method itself (as near_duplicate), at a rate
// that depends on the method; and no page may be reported as a duplicate of
// a page it was not derived from.
func TestMethodsEndToEnd(t *testing.T) {
	var set pageSet
	g := gen.New(gen.Options{Seed: 5, CopyRate: 0.5, EditRate: 0.01, Russian: 0.2})
	for range 240 {
		set.add(g.Next())
	}
	f := func(sketch lsh.Config, minEdited float64) {
		t.Run(sketch.Method, func(t *testing.T) {
			h := newHarness(t, 1)
			h.sketch = sketch
			h.sketch.EnsureDefaults()
			h.process(set.messages()...)
			outs := h.readAll(topicOut)
			byID := make(map[string]output, len(outs))
			for _, o := range outs {
				byID[o.key] = o
			}
			if len(byID) != len(set.order) {
				t.Fatalf("produced %d pages, read back %d", len(set.order), len(byID))
			}
			checkHeaders(t, h.method().Version(), outs)
			checkCopiesFound(t, &set, byID, minEdited)
		})
	}
	// Edited copies change ~5% of their shingles (J ≈ 0.9). The set sketches
	// at threshold 0.8 find nearly all. Fetterly's 6×14 super-shingles find a
	// pair at J = 0.9 with probability 0.42, 0.88 at 0.95. SimHash over
	// shingles flips each bit with probability acos(cos)/π ≈ 0.1 here, an
	// expected distance of ~6.4 bits: the default distance 6 finds a part of
	// them (the old default 3 found almost none).
	f(lsh.Config{Method: lsh.MethodOPH}, 0.9)
	f(lsh.Config{Method: lsh.MethodBottomK}, 0.9)
	f(lsh.Config{Method: lsh.MethodModM}, 0.85)
	f(lsh.Config{Method: lsh.MethodSuperShingle}, 0.4)
	f(lsh.Config{Method: lsh.MethodSimHash}, 0.3)
}

// checkCopiesFound checks every page's verdict against the generator's labels.
func checkCopiesFound(t *testing.T, set *pageSet, byID map[string]output, minEdited float64) {
	t.Helper()
	tally := make(map[string]int)
	var edited, editedNear int
	for _, id := range set.order {
		p, o := set.pages[id], byID[id]
		verdict, of := o.headers[stream.HeaderVerdict], o.headers[stream.HeaderOf]
		tally[p.Kind.String()+"/"+verdict]++
		if of != "" && set.pages[of].Origin != p.Origin {
			t.Errorf("%s (%s of %s) reported as %s of unrelated %s", id, p.Kind, p.Origin, verdict, of)
		}
		sameCluster := o.headers[stream.HeaderCluster] == byID[p.Origin].headers[stream.HeaderCluster]
		switch p.Kind {
		case gen.Original:
			if verdict != "unique" {
				t.Errorf("original %s: %s of %s", id, verdict, of)
			}
		case gen.Exact, gen.Mirror:
			if !sameCluster {
				t.Errorf("%s %s of %s: %s, not in its original's cluster", p.Kind, id, p.Origin, verdict)
			}
		case gen.Edited:
			edited++
			if verdict == "near_duplicate" && sameCluster {
				editedNear++
			}
		}
	}
	t.Logf("kind/verdict counts: %v", tally)
	if edited < 10 {
		t.Fatalf("only %d edited copies: too few to judge", edited)
	}
	if float64(editedNear) < minEdited*float64(edited) {
		t.Errorf("%d of %d edited copies found as near_duplicate of their original, want >= %.0f%%", editedNear, edited, 100*minEdited)
	}
}

// TestContained: a short page whose text is a passage of a longer page stored
// before it is "contained" in that page under a method that estimates
// containment, and unique under one that does not; stored the other way round
// (short first) neither page is a duplicate, since the long page is mostly
// not in the short one.
func TestContained(t *testing.T) {
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("w%d", (i*7919)%1009))
	}
	long := strings.Join(words, " ")
	short := strings.Join(words[150:250], " ")
	msg := func(id, body string) kafka.Message {
		v, _ := json.Marshal(map[string]string{"id": id, "body": body})
		return kafka.Message{Key: []byte(id), Value: v}
	}
	f := func(method string, msgs []kafka.Message, want map[string]string) {
		t.Helper()
		h := newHarness(t, 1)
		h.sketch = lsh.Config{Method: method, ModM: lsh.ModMParams{M: 4}}
		h.sketch.EnsureDefaults()
		h.containment = h.sketch.ContainmentThreshold()
		h.process(msgs...)
		got := make(map[string]string)
		for _, o := range h.readAll(topicOut) {
			got[o.key] = o.headers[stream.HeaderVerdict] + " " + o.headers[stream.HeaderOf]
			if o.headers[stream.HeaderVerdict] == "contained" && o.headers[stream.HeaderSimilarity] != "1.000" {
				t.Errorf("%s: %s: contained with similarity %s, want the containment 1.000", method, o.key, o.headers[stream.HeaderSimilarity])
			}
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: %s got %q, want %q", method, id, got[id], w)
			}
		}
	}
	longFirst := []kafka.Message{msg("long", long), msg("short", short)}
	shortFirst := []kafka.Message{msg("short", short), msg("long", long)}
	for _, m := range []string{lsh.MethodFull, lsh.MethodModM} {
		f(m, longFirst, map[string]string{"long": "unique ", "short": "contained long"})
		f(m, shortFirst, map[string]string{"short": "unique ", "long": "unique "})
	}
	f(lsh.MethodMinHash, longFirst, map[string]string{"long": "unique ", "short": "unique "})
}

// TestContainedWithContain: sketch.contain gives the default minhash the contained
// verdict through lsh.Method alone: the short passage of TestContained, stored after the
// long page, is contained in it; stored before, neither is a duplicate.
func TestContainedWithContain(t *testing.T) {
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("w%d", (i*7919)%1009))
	}
	long, short := strings.Join(words, " "), strings.Join(words[150:250], " ")
	msg := func(id, body string) kafka.Message {
		v, _ := json.Marshal(map[string]string{"id": id, "body": body})
		return kafka.Message{Key: []byte(id), Value: v}
	}
	f := func(msgs []kafka.Message, want map[string]string) {
		t.Helper()
		h := newHarness(t, 1)
		h.sketch = lsh.Config{Method: lsh.MethodMinHash, Contain: true}
		h.sketch.EnsureDefaults()
		h.containment = h.sketch.ContainmentThreshold()
		h.process(msgs...)
		outs := h.readAll(topicOut)
		if len(outs) != len(want) {
			t.Fatalf("%d records out, want %d", len(outs), len(want))
		}
		for _, o := range outs {
			got := o.headers[stream.HeaderVerdict] + " " + o.headers[stream.HeaderOf]
			if got != want[o.key] || !strings.HasSuffix(o.headers[stream.HeaderSketch], "+contain-modm25-n128-l4") {
				t.Errorf("%s: %q with sketch %s, want %q", o.key, got, o.headers[stream.HeaderSketch], want[o.key])
			}
		}
	}
	f([]kafka.Message{msg("long", long), msg("short", short)}, map[string]string{"long": "unique ", "short": "contained long"})
	f([]kafka.Message{msg("short", short), msg("long", long)}, map[string]string{"short": "unique ", "long": "unique "})
}
