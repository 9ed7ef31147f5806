package eval

import (
	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/offline/lab/oracle"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// Doc is one document to evaluate: its id and its cleaned (normalised) text.
type Doc struct {
	ID   string
	Text []byte
}

// words5 is the shingling of the ground truth: word 5-shingles, every window, as the
// default sketch configuration uses.
var words5 = lsh.Shingling{Length: 5, Offset: 1}

// Words5 returns the shingling of the ground truth (word 5-shingles, offset 1).
func Words5() lsh.Shingling { return words5 }

// CleanPages cleans generated pages as the stream does their records (HTML to main
// text, folded; a page without markup, gen.Page.Markup, as text).
func CleanPages(pages []gen.Page) []Doc {
	c := clean.New(clean.Options{})
	docs := make([]Doc, len(pages))
	for i, p := range pages {
		text, _ := prepare.CleanText(nil, c, prepare.Record{Body: []byte(p.HTML), HTML: p.Markup()})
		docs[i] = Doc{ID: p.ID, Text: text}
	}
	return docs
}

// Sets returns the sorted word-5-shingle sets of the documents.
func Sets(docs []Doc) [][]uint64 {
	texts := make([][]byte, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	return oracle.Sets(texts, words5)
}

// CleanCorpus reads up to limit documents (0: all) of a corpus with corpus.Read and
// cleans each as HTML or plain text, whichever it looks like, dropping documents left
// without words.
func CleanCorpus(path string, limit int) ([]Doc, error) {
	c := clean.New(clean.Options{})
	var docs []Doc
	err := corpus.Read(path, limit, func(d corpus.Doc) error {
		text, res := prepare.CleanText(nil, c, prepare.RawPage([]byte(d.Body)))
		if res.Tokens > 0 {
			docs = append(docs, Doc{ID: d.ID, Text: text})
		}
		return nil
	})
	return docs, err
}
