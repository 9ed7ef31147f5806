package report_test

import (
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// generatedState streams n generated pages (40% near-copies) through the real
// pipeline over the embedded broker (streamtest.Store) into a state in dir,
// and returns the pages.
func generatedState(t *testing.T, n int, dir string, params lsh.Params) []gen.Page {
	t.Helper()
	g := gen.New(gen.Options{Seed: 9, CopyRate: 0.4, EditRate: 0.01})
	pages := make([]gen.Page, n)
	msgs := make([]kafka.Message, n)
	for i := range pages {
		pages[i] = g.Next()
		msgs[i] = streamtest.Page(pages[i].ID, pages[i].URL, pages[i].HTML)
	}
	streamtest.Store(t, dir, streamtest.MinHash(t, params), 1, msgs)
	return pages
}
