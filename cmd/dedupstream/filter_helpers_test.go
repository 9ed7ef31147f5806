package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/filter"
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
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return b.Addr(), cfg
}

// filterRun is the filter (filter.Filter, as dedupstream run builds it) running in a test: cancel
// stops it, done receives Run's result. Closing it (a.Close) is the caller's.
type filterRun struct {
	*filter.Filter
	cancel context.CancelFunc
	done   <-chan error
}

// runFilter builds the filter on cfg (and opts), logging to log, and runs it.
func runFilter(t *testing.T, cfg Config, log *zap.Logger, opts ...filter.Option) *filterRun {
	t.Helper()
	a, err := newFilter(cfg, log, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	return &filterRun{Filter: a, cancel: cancel, done: done}
}

// stop cancels the filter and waits for Run, which must succeed.
func (f *filterRun) stop(t *testing.T) {
	t.Helper()
	f.cancel()
	if err := <-f.done; err != nil {
		t.Fatal(err)
	}
}

// startFilter is runFilter with the test's logger; stop is filterRun.stop.
func startFilter(t *testing.T, cfg Config, opts ...filter.Option) (a *filter.Filter, stop func()) {
	t.Helper()
	f := runFilter(t, cfg, zaptest.NewLogger(t), opts...)
	return f.Filter, func() {
		t.Helper()
		f.stop(t)
	}
}

// waitRecords waits until the filter has processed n records.
func waitRecords(t *testing.T, a *filter.Filter, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); a.Counts().Records < int64(n); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("filter processed %d of %d", a.Counts().Records, n)
		}
	}
}

func closeFilter(t *testing.T, a *filter.Filter) {
	t.Helper()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// streamGenerated runs the filter (filter.Filter, as dedupstream run builds it) on n generated
// pages through an embedded broker, stops it, and returns its configuration
// and a ground-truth file.
func streamGenerated(t *testing.T, n int, seed uint64, group, method string) (Config, string) {
	t.Helper()
	addr, cfg := testBroker(t, 1, group)
	cfg.Admin.Listen = ""
	if method != "" {
		cfg.Sketch.Method = method
		cfg.EnsureDefaults()
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

// readTopic reads every record of topic, failing the test on an error.
func readTopic(t *testing.T, addr, topic string) []kafka.Message {
	t.Helper()
	return streamtest.ReadTopic(t, addr, topic)
}

// headerMap is the headers of m by key.
func headerMap(m kafka.Message) map[string]string { return streamtest.Headers(m) }

// produce writes msgs to topic on brokers (comma-separated host:port) and
// waits for the brokers' acknowledgement.
func produce(ctx context.Context, brokers, topic string, msgs []kafka.Message) error {
	return embedded.Produce(ctx, stream.Security{}.Transport(toolsClient), brokers, topic, msgs)
}
