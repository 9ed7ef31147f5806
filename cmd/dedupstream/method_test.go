package main

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/filter"
)

// TestStateRefusesAnotherMethod: a state directory written by the default
// configuration (oph) cannot be opened with simhash configured, and the
// error names both sketches; the oph configuration still opens it.
func TestStateRefusesAnotherMethod(t *testing.T) {
	dir := t.TempDir()
	open := func(method string) (*filter.Filter, error) {
		var cfg Config
		cfg.State.Dir = dir
		cfg.Sketch.Method = method
		cfg.EnsureDefaults()
		cfg.Admin.Listen = ""
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		return newFilter(cfg, zaptest.NewLogger(t))
	}
	a, err := open("")
	if err != nil {
		t.Fatal(err)
	}
	if v := a.Method().Version(); v != "oph128-b10r5-w5-16bit" {
		t.Errorf("default sketch version %q, want oph128-b10r5-w5-16bit (the default)", v)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = open("simhash")
	var mismatch *state.SketchMismatchError
	if !errors.As(err, &mismatch) || !strings.Contains(err.Error(), `stored sketch "oph128-b10r5-w5-16bit"`) ||
		!strings.Contains(err.Error(), `configured "simhash`) {
		t.Fatalf("open an oph state with simhash: %v, want a sketch mismatch naming both", err)
	}
	a, err = open("oph")
	if err != nil {
		t.Fatalf("reopen with oph: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}
