package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/stream/embedded"
)

// TestStateBackupOfRunningFilter takes a backup of a running filter through its
// admin port, restores it into a new directory, and reads the stats there.
func TestStateBackupOfRunningFilter(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var cfg Config
	cfg.Kafka.Brokers, cfg.Kafka.Group = []string{b.Addr()}, "state-test"
	cfg.State.Dir = t.TempDir()
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.ensureDefaults()
	const n = 120
	if err := produce(context.Background(), b.Addr(), "pages", metricsInput(n, 0)); err != nil {
		t.Fatal(err)
	}
	a, err := newApp(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.run(ctx) }()
	for a.pipe.Counts().Records < n {
		time.Sleep(10 * time.Millisecond)
	}
	backup := filepath.Join(t.TempDir(), "state.backup")
	var out, errb bytes.Buffer
	from := "http://" + a.ln.Addr().String()
	if err := cmdState(ctx, []string{"backup", "--from", from, "--out", backup}, &out, &errb); err != nil {
		t.Fatalf("backup while running: %v %s", err, errb.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	for _, args := range [][]string{{"restore", "--in", backup, "--state", restored}, {"compact", "--state", restored}, {"stats", "--state", restored}} {
		if err := cmdState(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("state %s: %v %s", args[0], err, errb.String())
		}
	}
	if s := out.String(); !strings.Contains(s, "documents   120") || !strings.Contains(s, a.method.Version()) {
		t.Errorf("stats of the restored state:\n%s", s)
	}
	if err := cmdState(context.Background(), []string{"restore", "--in", backup, "--state", restored}, &out, &errb); err == nil {
		t.Error("restore over an existing state succeeded")
	}
}
