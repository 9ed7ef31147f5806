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
)

// TestMetricsAddUp runs the filter with its admin port, scrapes /metrics while
// it runs, and checks that records by verdict add up to the records consumed,
// that dead letters are counted by class, and that /livez and /readyz answer.
func TestMetricsAddUp(t *testing.T) {
	addr, cfg := testBroker(t, 2, "metrics-test")
	const good, bad = 300, 7
	if err := produce(context.Background(), addr, "pages", metricsInput(good, bad)); err != nil {
		t.Fatal(err)
	}
	a, stop := startFilter(t, cfg)
	base := "http://" + a.ln.Addr().String()
	m := waitForMetric(t, base, "dedupstream_records_total", good+bad)
	if got := m[`dedupstream_dead_letter_total{class="dedupstream.InvalidUTF8"}`]; got != bad {
		t.Errorf("dead letters counted %v, want %d", got, bad)
	}
	for _, path := range []string{"/livez", "/readyz"} {
		if code := httpStatus(t, base+path); code != http.StatusOK {
			t.Errorf("%s = %d while running", path, code)
		}
	}
	stop()
	if code := httpStatus(t, base+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz = %d after stop, want 503", code)
	}
	closeFilter(t, a)
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
