package stream_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// pageSet is what a test produced: the pages by id, in production order.
type pageSet struct {
	order []string
	pages map[string]gen.Page
}

func (s *pageSet) add(p gen.Page) {
	if s.pages == nil {
		s.pages = make(map[string]gen.Page)
	}
	s.order = append(s.order, p.ID)
	s.pages[p.ID] = p
}

func (s *pageSet) messages() []kafka.Message {
	msgs := make([]kafka.Message, 0, len(s.order))
	for _, id := range s.order {
		p := s.pages[id]
		msgs = append(msgs, streamtest.Page(p.ID, p.URL, p.HTML))
	}
	return msgs
}

// realPages wraps Reuters-21578 stories as pages with mirrors and near-copies,
// and adds generated Russian pages with theirs.
func realPages(t *testing.T, stories int) *pageSet {
	t.Helper()
	var set pageSet
	g := gen.New(gen.Options{Seed: 11, EditRate: 0.01})
	err := corpus.Read(corpusPath(t, "reuters21578.tar.gz"), stories, func(d corpus.Doc) error {
		if len(strings.Fields(d.Body)) < 40 { // briefs are too short to say much about near-duplicates
			return nil
		}
		for _, p := range g.Wrap(d.Title, d.Body, d.ID) {
			set.add(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ru := gen.New(gen.Options{Seed: 12, Russian: 1, CopyRate: 0.4, EditRate: 0.01})
	for i := 0; i < 400; i++ {
		set.add(ru.Next())
	}
	return &set
}

// oracle computes exact word-5-shingle resemblance of cleaned pages.
type oracle struct {
	c *clean.Cleaner
	s *lsh.Sketcher
}

func newOracle(p lsh.Params) oracle { return oracle{clean.New(clean.Options{}), lsh.NewSketcher(p)} }

func (o oracle) shingles(html string) []uint64 {
	text, _ := o.c.HTML(nil, []byte(html))
	return o.s.Shingles(nil, text)
}

func (o oracle) jaccard(a, b string) float64 { return lsh.Jaccard(o.shingles(a), o.shingles(b)) }

// TestEndToEnd streams real Reuters stories and Russian pages, wrapped with
// mirrors and near-copies, through a broker on loopback and the pipeline, and
// checks the verdicts read back from the output topic against exact resemblance.
func TestEndToEnd(t *testing.T) {
	set := realPages(t, 1200)
	h := newHarness(t, 2)
	counts := h.process(set.messages()...)
	outs := h.readAll(topicOut)
	byID := make(map[string]output, len(outs))
	for _, o := range outs {
		if _, dup := byID[o.key]; dup {
			t.Errorf("record %s emitted twice without a restart", o.key)
		}
		byID[o.key] = o
	}
	if len(byID) != len(set.order) || counts.Records != int64(len(set.order)) {
		t.Fatalf("produced %d pages, pipeline counted %d, output has %d distinct", len(set.order), counts.Records, len(byID))
	}
	checkHeaders(t, h.method().Version(), outs)
	checkAgainstOracle(t, set, byID, newOracle(h.sketch.Params), h.sketch.Params.Threshold)
}

func checkHeaders(t *testing.T, version string, outs []output) {
	t.Helper()
	for _, o := range outs {
		v := o.headers[stream.HeaderVerdict]
		switch v {
		case "unique":
			if o.headers[stream.HeaderOf] != "" {
				t.Errorf("%s: unique with dedup.of %q", o.key, o.headers[stream.HeaderOf])
			}
		case "near_duplicate", "exact_duplicate":
			if o.headers[stream.HeaderOf] == "" || o.headers[stream.HeaderSimilarity] == "" {
				t.Errorf("%s: %s without dedup.of/similarity: %v", o.key, v, o.headers)
			}
		default:
			t.Errorf("%s: bad verdict %q", o.key, v)
		}
		if o.headers[stream.HeaderSketch] != version || o.headers[stream.HeaderCluster] == "" {
			t.Errorf("%s: headers %v", o.key, o.headers)
		}
	}
}

// checkAgainstOracle: copies very similar to their origin end in the origin's
// cluster (whichever of the two the stream saw first), and no reported pair is
// far below the threshold. The bounds follow from the maths: with 128
// permutations the estimate's standard error is at most 0.045, and the default
// banding finds a pair at resemblance 0.95 with probability > 0.99.
func checkAgainstOracle(t *testing.T, set *pageSet, byID map[string]output, or oracle, threshold float64) {
	t.Helper()
	var wrong int
	var high, found [2]int // [0] all, [1] Cyrillic
	for _, id := range set.order {
		p, o := set.pages[id], byID[id]
		if of := o.headers[stream.HeaderOf]; of != "" {
			if j := or.jaccard(p.HTML, set.pages[of].HTML); j < threshold-0.2 {
				wrong++
				t.Logf("%s reported as duplicate of %s at exact resemblance %.3f", id, of, j)
			}
		}
		if p.Kind == gen.Original || or.jaccard(p.HTML, set.pages[p.Origin].HTML) < 0.95 {
			continue
		}
		same := o.headers[stream.HeaderCluster] == byID[p.Origin].headers[stream.HeaderCluster]
		classes := 1 // [0] all
		if hasCyrillic(p.HTML) {
			classes = 2 // and [1] Cyrillic
		}
		for k := range classes {
			high[k]++
			if same {
				found[k]++
			}
		}
	}
	t.Logf("copies at resemblance >= 0.95: %d (Cyrillic %d), in their origin's cluster %d (%d); far below threshold: %d",
		high[0], high[1], found[0], found[1], wrong)
	if high[0] < 100 || high[1] < 20 {
		t.Fatalf("too few close copies to judge: %v", high)
	}
	for k, name := range []string{"all", "Cyrillic"} {
		if float64(found[k]) < 0.97*float64(high[k]) {
			t.Errorf("%s: %d of %d copies at resemblance >= 0.95 are in their origin's cluster, want >= 97%%", name, found[k], high[k])
		}
	}
	if wrong > 0 {
		t.Errorf("%d reported duplicates have exact resemblance below %.2f", wrong, threshold-0.2)
	}
}

func hasCyrillic(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0
}
