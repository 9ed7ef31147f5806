package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/filter"
)

// TestStateRefusesOtherStemming: a state directory written with stop words
// and stemming on cannot be opened with them off (or with other languages),
// and the error names both sketch strings; the same settings open it again,
// also when given through the environment as DEDUPSTREAM_SKETCH_*.
func TestStateRefusesOtherStemming(t *testing.T) {
	dir := t.TempDir()
	open := func(environ []string) (*filter.Filter, error) {
		cfg, err := loadConfig("", environ)
		if err != nil {
			t.Fatal(err)
		}
		cfg.State.Dir, cfg.Admin.Listen = dir, ""
		cfg.EnsureDefaults()
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		return newFilter(cfg, zaptest.NewLogger(t))
	}
	stem := []string{"DEDUPSTREAM_SKETCH_STOPWORDS=en+ru", "DEDUPSTREAM_SKETCH_STEM=auto"}
	a, err := open(stem)
	if err != nil {
		t.Fatal(err)
	}
	if v := a.Method().Version(); v != "oph128-b10r5-w5-stopenru-stemenru-16bit" {
		t.Errorf("sketch version %q", v)
	}
	closeFilter(t, a)
	for _, env := range [][]string{nil, {"DEDUPSTREAM_SKETCH_STEM=auto"}, {"DEDUPSTREAM_SKETCH_STOPWORDS=en", "DEDUPSTREAM_SKETCH_STEM=auto"}} {
		_, err = open(env)
		var mismatch *state.SketchMismatchError
		if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), `stored sketch "oph128-b10r5-w5-stopenru-stemenru-16bit"`) {
			t.Fatalf("open a stemmed state with %v: %v, want a sketch mismatch naming the stored sketch", env, err)
		}
	}
	a, err = open(stem)
	if err != nil {
		t.Fatalf("reopen with the same stemming: %v", err)
	}
	closeFilter(t, a)
}

// TestFullKeysCapCounted: with method full, every page with more distinct
// shingles than sketch.full.max_keys is counted in
// dedupstream_caps_hit_total{cap="keys"}, and shorter pages are not.
func TestFullKeysCapCounted(t *testing.T) {
	addr, cfg := testBroker(t, 1, "full-keys-test")
	cfg.Sketch.Method, cfg.Sketch.Full.MaxKeys = "full", 5
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	const long, short = 40, 6
	msgs := metricsInput(long, 0) // 16 words: 12 distinct 5-word shingles each
	for i := range short {
		msgs = append(msgs, kafka.Message{Key: []byte("s" + strconv.Itoa(i)), Value: []byte("short page number " + strconv.Itoa(i))})
	}
	if err := produce(context.Background(), addr, "pages", msgs); err != nil {
		t.Fatal(err)
	}
	a, stop := startFilter(t, cfg)
	m := waitForMetric(t, "http://"+a.AdminAddr().String(), "dedupstream_records_total", long+short)
	if got := m[`dedupstream_caps_hit_total{cap="keys"}`]; got != long {
		t.Errorf("caps_hit{cap=\"keys\"} = %v, want %d", got, long)
	}
	stop()
	closeFilter(t, a)
}
