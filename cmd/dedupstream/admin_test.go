package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/stream/embedded"
)

// TestMetricsAddUp runs the filter with its admin port, scrapes /metrics while
// it runs, and checks that records by verdict add up to the records consumed,
// that dead letters are counted by class, and that /livez and /readyz answer.
func TestMetricsAddUp(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var cfg Config
	cfg.Kafka.Brokers, cfg.Kafka.Group = []string{b.Addr()}, "metrics-test"
	cfg.State.Dir = t.TempDir()
	cfg.Admin.Listen = "127.0.0.1:0"
	cfg.ensureDefaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	const good, bad = 300, 7
	if err := produce(context.Background(), b.Addr(), "pages", metricsInput(good, bad)); err != nil {
		t.Fatal(err)
	}
	a, err := newApp(cfg, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + a.ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.run(ctx) }()
	m := waitForMetric(t, base, "dedupstream_records_total", good+bad)
	if got := m[`dedupstream_dead_letter_total{class="dedupstream.InvalidUTF8"}`]; got != bad {
		t.Errorf("dead letters counted %v, want %d", got, bad)
	}
	for _, path := range []string{"/livez", "/readyz"} {
		if code := httpStatus(t, base+path); code != http.StatusOK {
			t.Errorf("%s = %d while running", path, code)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if code := httpStatus(t, base+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz = %d after stop, want 503", code)
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
}

func metricsInput(good, bad int) []kafka.Message {
	var msgs []kafka.Message
	for i := 0; i < good; i++ {
		text := fmt.Sprintf("page %d says something of its own about item %d and topic %d in several words", i, i%40, i%7)
		msgs = append(msgs, kafka.Message{Key: []byte("k" + strconv.Itoa(i)), Value: []byte(text)})
	}
	for i := 0; i < bad; i++ {
		msgs = append(msgs, kafka.Message{Key: []byte("bad" + strconv.Itoa(i)), Value: []byte("caf\xe9")})
	}
	return msgs
}

// waitForMetric scrapes until the series of name sum to want, and returns the scrape.
func waitForMetric(t *testing.T, base, name string, want int) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := scrape(t, base)
		var sum float64
		for k, v := range m {
			if k == name || strings.HasPrefix(k, name+"{") {
				sum += v
			}
		}
		if sum == float64(want) {
			return m
		}
		if sum > float64(want) || time.Now().After(deadline) {
			t.Fatalf("%s sums to %v, want %d", name, sum, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func scrape(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	m := make(map[string]float64)
	s := bufio.NewScanner(resp.Body)
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				m[line[:i]] = v
			}
		}
	}
	return m
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
