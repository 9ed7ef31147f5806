package lsh

import (
	"math"
	"testing"
)

func TestEnsureDefaults(t *testing.T) {
	f := func(in, want Params) {
		t.Helper()
		in.EnsureDefaults()
		if in != want {
			t.Errorf("EnsureDefaults:\n got %+v\nwant %+v", in, want)
		}
	}
	f(Params{}, Params{Shingle: 5, NumPerm: 128, Threshold: 0.8, Bands: 10, Rows: 5, MaxBands: 10,
		FPWeight: 0.01, FNWeight: 0.99, Seed: 1})
	// datasketch's equal weights give its 9x13 (within the 10 bands).
	f(Params{FPWeight: 0.5, FNWeight: 0.5}, Params{Shingle: 5, NumPerm: 128, Threshold: 0.8, Bands: 9, Rows: 13,
		MaxBands: 10, FPWeight: 0.5, FNWeight: 0.5, Seed: 1})
	// Weights 0.05/0.95 without the cap give 16x8 (the banding of older states).
	f(Params{MaxBands: 128, FPWeight: 0.05, FNWeight: 0.95}, Params{Shingle: 5, NumPerm: 128, Threshold: 0.8,
		Bands: 16, Rows: 8, MaxBands: 128, FPWeight: 0.05, FNWeight: 0.95, Seed: 1})
	f(Params{Shingle: 4, NumPerm: 64, Threshold: 0.5, Bands: 16, Rows: 4, FPWeight: 1, FNWeight: 2, Seed: 9},
		Params{Shingle: 4, NumPerm: 64, Threshold: 0.5, Bands: 16, Rows: 4, MaxBands: 10, FPWeight: 1, FNWeight: 2, Seed: 9})
	// One of bands/rows given: the other fills num_perm, whatever max_bands says.
	f(Params{Bands: 16}, Params{Shingle: 5, NumPerm: 128, Threshold: 0.8, Bands: 16, Rows: 8, MaxBands: 10,
		FPWeight: 0.01, FNWeight: 0.99, Seed: 1})
	f(Params{Rows: 5}, Params{Shingle: 5, NumPerm: 128, Threshold: 0.8, Bands: 25, Rows: 5, MaxBands: 10,
		FPWeight: 0.01, FNWeight: 0.99, Seed: 1})
	// A single zero weight is deliberate, not a default.
	f(Params{FNWeight: 1, Bands: 1, Rows: 1}, Params{Shingle: 5, NumPerm: 128, Threshold: 0.8,
		Bands: 1, Rows: 1, MaxBands: 10, FPWeight: 0, FNWeight: 1, Seed: 1})
}

func TestValidate(t *testing.T) {
	valid := Params{}
	valid.EnsureDefaults()
	f := func(edit func(*Params), want string) {
		t.Helper()
		p := valid
		edit(&p)
		err := p.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Validate(%+v):\n got %q\nwant %q", p, got, want)
		}
	}
	f(func(p *Params) {}, "")
	f(func(p *Params) { p.Shingle = 0 }, "sketch.shingle: must be in [1, 64], got 0")
	f(func(p *Params) { p.Shingle = 65 }, "sketch.shingle: must be in [1, 64], got 65")
	f(func(p *Params) { p.NumPerm = 0 }, "sketch.num_perm: must be in [1, 1024], got 0")
	f(func(p *Params) { p.NumPerm = 1025 }, "sketch.num_perm: must be in [1, 1024], got 1025")
	f(func(p *Params) { p.Threshold = 1.2 }, "sketch.threshold: must be in (0, 1), got 1.2")
	f(func(p *Params) { p.Threshold = 0 }, "sketch.threshold: must be in (0, 1), got 0")
	f(func(p *Params) { p.Threshold = 1 }, "sketch.threshold: must be in (0, 1), got 1")
	f(func(p *Params) { p.Threshold = math.NaN() }, "sketch.threshold: must be in (0, 1), got NaN")
	f(func(p *Params) { p.FPWeight = -1 }, "sketch.fp_weight: must be a finite number >= 0, got -1")
	f(func(p *Params) { p.FNWeight = math.Inf(1) }, "sketch.fn_weight: must be a finite number >= 0, got +Inf")
	f(func(p *Params) { p.FPWeight, p.FNWeight = 0, 0 }, "sketch.fp_weight, sketch.fn_weight: must not both be 0")
	f(func(p *Params) { p.MaxBands = 0 }, "sketch.max_bands: must be >= 1, got 0")
	f(func(p *Params) { p.FPWeight = 0 }, "")
	f(func(p *Params) { p.Bands = 0 }, "sketch.bands: must be >= 1, got 0")
	f(func(p *Params) { p.Rows = -3 }, "sketch.rows: must be >= 1, got -3")
	f(func(p *Params) { p.Bands, p.Rows = 10, 13 },
		"sketch.bands, sketch.rows: bands*rows must be <= num_perm 128, got 10*13")
	f(func(p *Params) { p.Bands, p.Rows = 16, 8 }, "")
	f(func(p *Params) { p.Bands, p.Rows = 1, 128 }, "")
	f(func(p *Params) { p.Seed = 0 }, "sketch.seed: must not be 0 (EnsureDefaults sets 1)")
}

func TestVersion(t *testing.T) {
	f := func(p Params, want string) {
		t.Helper()
		if got := p.Version(); got != want {
			t.Errorf("Version(%+v) = %q, want %q", p, got, want)
		}
	}
	def := Params{}
	def.EnsureDefaults()
	f(def, "minhash128-b10r5-w5")
	f(Params{NumPerm: 128, Bands: 9, Rows: 13, Shingle: 5, Seed: 1}, "minhash128-b9r13-w5")
	f(Params{NumPerm: 128, Bands: 16, Rows: 8, Shingle: 5, Seed: 1}, "minhash128-b16r8-w5")
	f(Params{NumPerm: 64, Bands: 8, Rows: 8, Shingle: 4, Seed: 7}, "minhash64-b8r8-w4-s7")
	f(Params{NumPerm: 1024, Bands: 51, Rows: 20, Shingle: 64, Seed: math.MaxUint64},
		"minhash1024-b51r20-w64-s18446744073709551615")
}
