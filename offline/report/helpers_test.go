package report_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/gen"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// generatedState streams n generated pages (40% near-copies) through the real
// pipeline over the embedded broker into a state in dir, and returns the pages.
func generatedState(t *testing.T, n int, dir string, params lsh.Params) []gen.Page {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g := gen.New(gen.Options{Seed: 9, CopyRate: 0.4, EditRate: 0.01})
	pages := make([]gen.Page, n)
	msgs := make([]kafka.Message, n)
	for i := range pages {
		pages[i] = g.Next()
		v, _ := json.Marshal(map[string]string{"id": pages[i].ID, "url": pages[i].URL, "html": pages[i].HTML})
		msgs[i] = kafka.Message{Key: []byte(pages[i].ID), Value: v}
	}
	w := &kafka.Writer{Addr: kafka.TCP(b.Addr()), Topic: "pages", BatchTimeout: time.Millisecond}
	if err := w.WriteMessages(context.Background(), msgs...); err != nil {
		t.Fatal(err)
	}
	w.Close()
	runPipeline(t, b.Addr(), dir, params, int64(n))
	return pages
}

// runPipeline runs the filter until it has processed n records, then stops it
// and closes the state.
func runPipeline(t *testing.T, addr, dir string, params lsh.Params, n int64) {
	t.Helper()
	var cfg stream.Config
	cfg.Kafka.Brokers = []string{addr}
	cfg.EnsureDefaults()
	st, err := state.Open(state.Options{Dir: dir, SketchVersion: params.Version()})
	if err != nil {
		t.Fatal(err)
	}
	mc := lsh.Config{Method: lsh.MethodMinHash, Params: params}
	mc.EnsureDefaults()
	m, err := lsh.NewMethod(mc, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := stream.New(cfg, stream.Deps{Logger: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)),
		Cleaner: clean.New(clean.Options{}), Method: m, Index: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	for deadline := time.Now().Add(time.Minute); p.Counts().Records < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("stream processed %d of %d", p.Counts().Records, n)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
