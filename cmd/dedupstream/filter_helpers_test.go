package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/offline/gen"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// testBroker starts an embedded broker with the default topics and returns a
// valid filter configuration for it: state in a temporary directory, the
// admin port on a free loopback port.
func testBroker(t *testing.T, partitions int, group string) (string, Config) {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	var cfg Config
	cfg.Kafka.Brokers, cfg.Kafka.Group = []string{b.Addr()}, group
	cfg.State.Dir = t.TempDir()
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.ensureDefaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	return b.Addr(), cfg
}

// startFilter builds the filter on cfg (and opts) and runs it; stop cancels
// it and waits for Run to return. Closing it (a.close) is the caller's.
func startFilter(t *testing.T, cfg Config, opts ...appOption) (a *app, stop func()) {
	t.Helper()
	a, err := newApp(cfg, zaptest.NewLogger(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.run(ctx) }()
	return a, func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// waitRecords waits until the filter has processed n records.
func waitRecords(t *testing.T, a *app, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); a.pipe.Counts().Records < int64(n); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("filter processed %d of %d", a.pipe.Counts().Records, n)
		}
	}
}

func closeFilter(t *testing.T, a *app) {
	t.Helper()
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
}

// streamGenerated runs the filter (dedupstream run's app) on n generated
// pages through an embedded broker, stops it, and returns its configuration
// and a ground-truth file.
func streamGenerated(t *testing.T, n int, seed uint64, group, method string) (Config, string) {
	t.Helper()
	addr, cfg := testBroker(t, 1, group)
	cfg.Admin.Listen = ""
	if method != "" {
		cfg.Sketch.Method = method
		cfg.ensureDefaults()
	}
	g := gen.New(gen.Options{Seed: seed, CopyRate: 0.4, EditRate: 0.01})
	var msgs []kafka.Message
	var truth strings.Builder
	for range n {
		p := g.Next()
		msgs = append(msgs, streamtest.Page(p.ID, p.URL, p.HTML))
		truth.WriteString(p.ID + "\t" + p.Origin + "\n")
	}
	truthFile := filepath.Join(t.TempDir(), "truth.tsv")
	if err := os.WriteFile(truthFile, []byte(truth.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := produce(context.Background(), addr, "pages", msgs); err != nil {
		t.Fatal(err)
	}
	a, stop := startFilter(t, cfg)
	waitRecords(t, a, len(msgs))
	stop()
	closeFilter(t, a)
	return cfg, truthFile
}
