package eval

import (
	"os"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
)

// Generate makes labelled pages with o: n generated ones, or, with
// corpusPath, up to limit documents of that corpus (corpus.Read; 0: all)
// wrapped as pages with their near-copies.
func Generate(o gen.Options, n int, corpusPath string, limit int) ([]gen.Page, error) {
	g := gen.New(o)
	var pages []gen.Page
	if corpusPath == "" {
		for range n {
			pages = append(pages, g.Next())
		}
		return pages, nil
	}
	err := corpus.Read(corpusPath, limit, func(d corpus.Doc) error {
		pages = append(pages, g.Wrap(d.Title, d.Body, d.ID)...)
		return nil
	})
	return pages, err
}

// Messages are the pages as JSON records (PageRecord) keyed by their ids,
// with their labels in the headers gen.kind and gen.origin (the filter
// passes them through, so its output can be scored without parsing the
// values).
func Messages(pages []gen.Page) ([]kafka.Message, error) {
	msgs := make([]kafka.Message, len(pages))
	for i, p := range pages {
		v, err := PageRecord(p)
		if err != nil {
			return nil, err
		}
		msgs[i] = kafka.Message{Key: []byte(p.ID), Value: v, Headers: []kafka.Header{
			{Key: "gen.kind", Value: []byte(p.Kind.String())}, {Key: "gen.origin", Value: []byte(p.Origin)}}}
	}
	return msgs, nil
}

// ReadLabelled reads the pages file at pagesPath (ReadPages) and the ground
// truth at truthPath (id<TAB>cluster, as WriteTruth writes it) and returns
// the cleaned documents and their truth.
func ReadLabelled(pagesPath, truthPath string) ([]Doc, TruthFunc, error) {
	f, err := os.Open(pagesPath)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	pages, err := ReadPages(f)
	if err != nil {
		return nil, nil, err
	}
	tf, err := os.Open(truthPath)
	if err != nil {
		return nil, nil, err
	}
	defer tf.Close()
	c, err := quality.ReadClustering(tf, quality.FormatLabels)
	if err != nil {
		return nil, nil, err
	}
	return CleanPages(pages), Labelled(c), nil
}

// ReadNatural reads up to limit documents of the corpus at path (CleanCorpus)
// and returns them with the exact oracle's pairs as their truth, at
// thresholds of lowest and above (Natural).
func ReadNatural(path string, limit int, lowest float64) ([]Doc, TruthFunc, error) {
	docs, err := CleanCorpus(path, limit)
	if err != nil {
		return nil, nil, err
	}
	truth, err := Natural(docs, lowest)
	return docs, truth, err
}

// RunEach runs Run once per sketch.verify method in verifiers, or once with
// o.Config's when there are none, and returns all their rows.
func RunEach(docs []Doc, truth TruthFunc, o Options, verifiers []string) ([]Row, error) {
	if len(verifiers) == 0 {
		return Run(docs, truth, o)
	}
	var rows []Row
	for _, v := range verifiers {
		o.Config.Verify.Method = v
		r, err := Run(docs, truth, o)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}
