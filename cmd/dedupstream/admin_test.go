package main

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
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
	cfg.Admin.StateInterval = 20 * time.Millisecond
	a, stop := startFilter(t, cfg)
	base := "http://" + a.AdminAddr().String()
	m := waitForMetric(t, base, "dedupstream_records_total", good+bad)
	if got := m[`dedupstream_dead_letter_total{class="dedupstream.InvalidUTF8"}`]; got != bad {
		t.Errorf("dead letters counted %v, want %d", got, bad)
	}
	checkLookupMetrics(t, m)
	for _, p := range []string{"0", "1"} {
		if v, ok := m[`dedupstream_consumer_lag_records{partition="`+p+`"}`]; !ok || v != 0 {
			t.Errorf("lag of partition %s = %v (exported %v), want 0 once all is consumed", p, v, ok)
		}
	}
	m = waitForMetric(t, base, "dedupstream_state_documents", good)
	if v := m[`dedupstream_state_bytes{kind="index"}`]; v <= 0 {
		t.Errorf("state index bytes not exported: %v", v)
	}
	if !hasSeries(m, "dedupstream_build_info{goversion=\"go") {
		t.Errorf("dedupstream_build_info has no goversion label")
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

// TestLagGrowsWhileStalled holds the filter's first commit and produces more
// input: the consumer-lag gauge, sampled from the brokers on the state
// ticker, grows past anything the stalled pipeline's own fetches saw though
// nothing commits, and returns to 0 once the commit is released.
func TestLagGrowsWhileStalled(t *testing.T) {
	addr, cfg := testBroker(t, 1, "lag-test")
	cfg.Admin.StateInterval = 20 * time.Millisecond
	cfg.Batch.Size = 50
	in := metricsInput(200, 0)
	if err := produce(context.Background(), addr, "pages", in[:100]); err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hold := func(d *stream.Deps) {
		d.AfterStage = func(stage string, _ int) error {
			if stage == stream.AfterCommitted {
				once.Do(func() { close(held); <-release })
			}
			return nil
		}
	}
	a, stop := startFilter(t, cfg, hold)
	select {
	case <-held:
	case <-time.After(time.Minute):
		t.Fatal("the filter never committed a batch")
	}
	if err := produce(context.Background(), addr, "pages", in[100:]); err != nil {
		t.Fatal(err)
	}
	base := "http://" + a.AdminAddr().String()
	const lag = `dedupstream_consumer_lag_records{partition="0"}`
	// Before the stall the pipeline had fetched at most the first 100 records,
	// so only the brokers' watermark (200) can put the lag above 100.
	for deadline := time.Now().Add(30 * time.Second); scrape(t, base)[lag] <= 100; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("lag %v while stalled, want > 100", scrape(t, base)[lag])
		}
	}
	close(release)
	waitRecords(t, a, len(in))
	for deadline := time.Now().Add(30 * time.Second); scrape(t, base)[lag] != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("lag %v after all is consumed, want 0", scrape(t, base)[lag])
		}
	}
	stop()
	closeFilter(t, a)
}

func metricsInput(good, bad int) []kafka.Message {
	var msgs []kafka.Message
	for i := 0; i < good; i++ {
		text := metricsPage(i)
		if i%10 == 9 { // a near-copy of the page before, one word added: resemblance 96/97
			text = metricsPage(i-1) + " changed"
		}
		msgs = append(msgs, kafka.Message{Key: []byte("k" + strconv.Itoa(i)), Value: []byte(text)})
	}
	for i := 0; i < bad; i++ {
		msgs = append(msgs, kafka.Message{Key: []byte("bad" + strconv.Itoa(i)), Value: []byte("\xe9\x9c\xc3\xb1\xd2\x8b\xfa")}) // in no encoding
	}
	return msgs
}

// metricsPage is a page of 100 words of its own.
func metricsPage(i int) string {
	words := make([]string, 100)
	for j := range words {
		words[j] = "w" + strconv.Itoa((i*7919+j*104729)%1000003)
	}
	return strings.Join(words, " ")
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

// checkLookupMetrics checks that the lookup histograms agree with the counters:
// one candidate-count observation per lookup (every valid record that is not
// an exact duplicate), one similarity observation per verified candidate.
func checkLookupMetrics(t *testing.T, m map[string]float64) {
	t.Helper()
	verified := m["dedupstream_candidates_verified_total"]
	lookups := m[`dedupstream_records_total{verdict="unique"}`] + m[`dedupstream_records_total{verdict="near_duplicate"}`]
	if verified == 0 || m[`dedupstream_records_total{verdict="near_duplicate"}`] == 0 {
		t.Fatalf("the input gave no near-duplicates to verify: %v candidates", verified)
	}
	if got := m["dedupstream_candidate_similarity_ratio_count"]; got != verified {
		t.Errorf("similarity histogram has %v observations, %v candidates were verified", got, verified)
	}
	if got := m["dedupstream_lookup_candidates_sum"]; got != verified {
		t.Errorf("candidates per lookup sum to %v, %v were verified", got, verified)
	}
	if got := m["dedupstream_lookup_candidates_count"]; got != lookups {
		t.Errorf("%v lookups observed, want %v (unique + near_duplicate)", got, lookups)
	}
	if near, high := m[`dedupstream_records_total{verdict="near_duplicate"}`], m["dedupstream_candidate_similarity_ratio_count"]-
		m[`dedupstream_candidate_similarity_ratio_bucket{le="0.7500000000000001"}`]; high < near {
		t.Errorf("%v candidates above 0.75 similarity, fewer than the %v near-duplicates found", high, near)
	}
}

func hasSeries(m map[string]float64, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
