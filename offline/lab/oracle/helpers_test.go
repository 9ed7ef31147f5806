package oracle

import (
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/corpus"
)

// corpusPath finds a real corpus in ../shared/corpora beside the repository,
// or skips the test.
func corpusPath(t testing.TB, name string) string {
	t.Helper()
	p, err := corpus.Locate("corpora", name)
	if err != nil {
		t.Skip(err)
	}
	return p
}

// doc is one cleaned corpus document.
type doc struct {
	id   string
	text []byte
}

// loadCorpus reads the first limit documents of a corpus and cleans them as plain
// text, dropping those left without words.
func loadCorpus(t testing.TB, name string, limit int) []doc {
	t.Helper()
	c := clean.New(clean.Options{})
	var docs []doc
	err := corpus.Read(corpusPath(t, name), limit, func(d corpus.Doc) error {
		text, res := c.Text(nil, []byte(d.Body))
		if res.Tokens > 0 {
			docs = append(docs, doc{id: d.ID, text: text})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func texts(docs []doc) [][]byte {
	out := make([][]byte, len(docs))
	for i, d := range docs {
		out[i] = d.text
	}
	return out
}

var words5 = lsh.Shingling{Length: 5, Offset: 1}

// bruteForce compares every pair of sets.
func bruteForce(sets [][]uint64, threshold float64) []Pair {
	var out []Pair
	for a := range sets {
		for b := a + 1; b < len(sets); b++ {
			o := lsh.OverlapOf(sets[a], sets[b])
			if o.Inter > 0 && max(o.AinB(), o.BinA()) >= threshold {
				out = append(out, Pair{A: a, B: b, Overlap: o})
			}
		}
	}
	return out
}
