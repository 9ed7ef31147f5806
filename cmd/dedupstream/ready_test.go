package main

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// TestBrokerDownAndUp stops the broker under a running filter and starts it
// again on the same port and log directory: /readyz turns 503 while the
// broker is gone (the group membership is lost), the filter keeps running and
// retries, turns ready again when the broker is back, and every record
// produced before and after the outage gets exactly one verdict.
func TestBrokerDownAndUp(t *testing.T) {
	logDir := t.TempDir()
	opts := embedded.Options{Listen: "127.0.0.1:0", Topics: []string{"pages", "pages.out", "pages.dlq"},
		Partitions: 2, DataDir: logDir, MinSessionTimeout: 100 * time.Millisecond}
	b, err := embedded.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Listen = b.Addr() // the restart takes the same port
	cfg := readyConfig(t, b.Addr())
	before := metricsInput(150, 0)
	if err := produce(context.Background(), b.Addr(), "pages", before); err != nil {
		t.Fatal(err)
	}
	a := runFilter(t, cfg, zaptest.NewLogger(t))
	base := "http://" + a.AdminAddr().String()
	waitRecords(t, a.Filter, len(before))
	waitStatus(t, base+"/readyz", http.StatusOK, "with the broker up")

	b.Close()
	waitStatus(t, base+"/readyz", http.StatusServiceUnavailable, "with the broker down")
	if code := httpStatus(t, base+"/livez"); code != http.StatusOK {
		t.Errorf("/livez = %d with the broker down, want 200", code)
	}
	time.Sleep(time.Second) // fetches fail and are retried meanwhile
	select {
	case err := <-a.done:
		t.Fatalf("filter stopped while the broker was down: %v", err)
	default:
	}

	if b, err = restartBroker(opts); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	waitStatus(t, base+"/readyz", http.StatusOK, "with the broker back")
	after := metricsInput(300, 0)[150:] // new keys k150..k299
	if err := produce(context.Background(), b.Addr(), "pages", after); err != nil {
		t.Fatal(err)
	}
	waitDrained(t, b.Addr(), cfg.Kafka.Group, "pages", time.Minute)
	a.stop(t)
	closeFilter(t, a.Filter)
	checkEveryKey(t, b.Addr(), append(before, after...))
}

// TestNotReadyWhileDraining holds a batch in the decide stage, stops the
// filter, and checks /readyz answers 503 while that batch drains; the batch is
// then finished and committed.
func TestNotReadyWhileDraining(t *testing.T) {
	addr, cfg := testBroker(t, 1, "drain-ready")
	if err := produce(context.Background(), addr, "pages", metricsInput(40, 0)); err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	hold := func(d *stream.Deps) {
		d.AfterStage = func(stage string, batch int) error {
			if stage == stream.AfterDecided && batch == 1 {
				close(held)
				<-release
			}
			return nil
		}
	}
	a := runFilter(t, cfg, zaptest.NewLogger(t), hold)
	base := "http://" + a.AdminAddr().String()
	<-held
	waitStatus(t, base+"/readyz", http.StatusOK, "before the stop")
	a.cancel()
	waitStatus(t, base+"/readyz", http.StatusServiceUnavailable, "while draining")
	releaseOnce.Do(func() { close(release) })
	if err := <-a.done; err != nil {
		t.Fatal(err)
	}
	if got := a.Counts().Records; got == 0 {
		t.Errorf("the held batch was not finished: %d records counted", got)
	}
	closeFilter(t, a.Filter)
}

func readyConfig(t *testing.T, addr string) Config {
	t.Helper()
	var cfg Config
	cfg.Kafka.Brokers, cfg.Kafka.Group = []string{addr}, "ready-test"
	cfg.Kafka.SessionTimeout = time.Second
	cfg.Batch.RetryBackoff = 50 * time.Millisecond
	cfg.State.Dir = t.TempDir()
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// restartBroker starts the broker again on its port, retrying while the old
// listener's port is still being released.
func restartBroker(o embedded.Options) (*embedded.Broker, error) {
	var err error
	for range 50 {
		var b *embedded.Broker
		if b, err = embedded.Start(o); err == nil {
			return b, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, err
}

func waitStatus(t *testing.T, url string, want int, when string) {
	t.Helper()
	var got int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = httpStatus(t, url); got == want {
			return
		}
	}
	t.Fatalf("%s = %d %s, want %d", url, got, when, want)
}

// checkEveryKey fails unless every input message has an output on the
// topics outs (none: pages.out) and all outputs of one key carry the same
// verdict headers.
func checkEveryKey(t *testing.T, addr string, in []kafka.Message, outs ...string) {
	t.Helper()
	if len(outs) == 0 {
		outs = []string{"pages.out"}
	}
	var all []kafka.Message
	for _, topic := range outs {
		all = append(all, readTopic(t, addr, topic)...)
	}
	out := groupBy(all, func(m kafka.Message) string { return string(m.Key) })
	replays := 0
	for _, m := range in {
		got := out[string(m.Key)]
		if len(got) == 0 {
			t.Errorf("%s has no outcome", m.Key)
			continue
		}
		replays += len(got) - 1
		want := headerMap(got[0])
		for _, o := range got[1:] {
			for _, k := range verdictHeaders {
				if h := headerMap(o); h[k] != want[k] {
					t.Errorf("%s emitted with %s %q and %q", m.Key, k, want[k], h[k])
				}
			}
		}
	}
	t.Logf("%d records, all with an outcome; %d replayed outputs", len(in), replays)
}
