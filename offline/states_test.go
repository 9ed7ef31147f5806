package offline_test

import (
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/vocab"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/state"
)

// genDocs cleans n generated pages (copy rate 0.4, 1% edits) as the stream
// does, and returns them with each page's origin: the true cluster.
func genDocs(t *testing.T, n int, seed uint64) ([]eval.Doc, map[string]string) {
	t.Helper()
	g := gen.New(gen.Options{Seed: seed, CopyRate: 0.4, EditRate: 0.01})
	pages := make([]gen.Page, n)
	truth := make(map[string]string, n)
	for i := range pages {
		pages[i] = g.Next()
		truth[pages[i].ID] = pages[i].Origin
	}
	return eval.CleanPages(pages), truth
}

// methodOf builds a method with default parameters (imatch with a vocabulary
// of docs).
func methodOf(t *testing.T, name string, docs []eval.Doc) lsh.Method {
	t.Helper()
	var vb vocab.Builder
	for _, d := range docs {
		vb.Add(d.Text)
	}
	c := lsh.Config{Method: name}
	if finder, verifier, ok := strings.Cut(name, "+"); ok { // "minhash+full": minhash verified by full
		c.Method, c.Verify.Method = finder, verifier
	}
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, vb.Vocabulary())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// storeDocs opens a Badger state in dir for m and stores docs in order with
// their sketches and index keys, as the stream's stage and publish do.
func storeDocs(t *testing.T, dir string, m lsh.Method, docs []eval.Doc) *state.Store {
	t.Helper()
	st, err := state.Open(state.Options{Dir: dir, MaxCandidates: 1000, MaxBucket: 1000, GCInterval: -1}.ForMethod(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var sc lsh.Scratch
	batch := make([]state.Doc, 0, 100)
	for i, d := range docs {
		sketch, keys := m.Sketch(&sc, d.Text, nil, nil)
		batch = append(batch, state.Doc{Seq: st.Reserve(), ID: d.ID, URL: "https://example.test/" + d.ID,
			ContentHash: lsh.ContentHash(d.Text), Verdict: 1, Sketch: sketch, Bands: keys})
		if len(batch) == cap(batch) || i == len(docs)-1 {
			if err := st.Put(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return st
}
