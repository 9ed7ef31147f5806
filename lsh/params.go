package lsh

import (
	"fmt"
	"math"
)

// Limits on Params enforced by Validate.
const (
	MaxShingle = 64   // largest words-per-shingle
	MaxNumPerm = 1024 // largest number of MinHash permutations
)

// Params configures a Sketcher. The zero value of every field means "use the
// default"; call EnsureDefaults and then Validate before NewSketcher.
type Params struct {
	Shingle   int     `yaml:"shingle"`   // words per shingle; 0 → 5
	NumPerm   int     `yaml:"num_perm"`  // MinHash permutations; 0 → 128
	Threshold float64 `yaml:"threshold"` // Jaccard threshold; 0 → 0.8
	Bands     int     `yaml:"bands"`     // 0 with Rows 0 → chosen by AutoBands
	Rows      int     `yaml:"rows"`      // rows (signature values) per band
	MaxBands  int     `yaml:"max_bands"` // most bands AutoBands chooses; 0 → 10
	FPWeight  float64 `yaml:"fp_weight"` // weight of false positives; both 0 → 0.01
	FNWeight  float64 `yaml:"fn_weight"` // weight of false negatives; both 0 → 0.99
	Seed      uint64  `yaml:"seed"`      // seed of the permutations; 0 → 1
}

// Defaults of the automatic banding (AutoBands): the weights of false
// positives and false negatives, and the most bands.
const (
	DefaultFPWeight = 0.01
	DefaultFNWeight = 0.99
	DefaultMaxBands = 10
)

// EnsureDefaults replaces zero fields with their defaults. When both Bands
// and Rows are zero they are chosen by AutoBands from Threshold, NumPerm,
// MaxBands and the weights; when only one of them is zero it is set to NumPerm
// divided by the other. Invalid values are left for Validate to report.
func (p *Params) EnsureDefaults() {
	if p.Shingle == 0 {
		p.Shingle = 5
	}
	if p.NumPerm == 0 {
		p.NumPerm = 128
	}
	if p.Threshold == 0 {
		p.Threshold = 0.8
	}
	if p.FPWeight == 0 && p.FNWeight == 0 {
		// Every candidate is verified against its signature, so a false positive
		// costs a little CPU while a false negative loses a duplicate: weigh
		// misses heavily. With at most 10 bands this gives 10 bands of 5 rows
		// at threshold 0.8, which make a pair at resemblance 0.8 a candidate
		// with probability 0.981 (datasketch's 0.5/0.5 gives 9x13 and 0.399).
		p.FPWeight, p.FNWeight = DefaultFPWeight, DefaultFNWeight
	}
	if p.MaxBands == 0 {
		p.MaxBands = DefaultMaxBands
	}
	if p.Seed == 0 {
		p.Seed = 1
	}
	switch {
	case p.Bands == 0 && p.Rows == 0:
		p.Bands, p.Rows = AutoBands(p.Threshold, p.NumPerm, p.MaxBands, p.FPWeight, p.FNWeight)
	case p.Bands == 0 && p.Rows > 0:
		p.Bands = p.NumPerm / p.Rows
	case p.Rows == 0 && p.Bands > 0:
		p.Rows = p.NumPerm / p.Bands
	}
}

// Validate reports the first invalid field. Each message names the
// configuration key under "sketch.".
func (p Params) Validate() error {
	switch {
	case p.Shingle < 1 || p.Shingle > MaxShingle:
		return fmt.Errorf("sketch.shingle: must be in [1, %d], got %d", MaxShingle, p.Shingle)
	case p.NumPerm < 1 || p.NumPerm > MaxNumPerm:
		return fmt.Errorf("sketch.num_perm: must be in [1, %d], got %d", MaxNumPerm, p.NumPerm)
	case !(p.Threshold > 0 && p.Threshold < 1):
		return fmt.Errorf("sketch.threshold: must be in (0, 1), got %g", p.Threshold)
	case !validWeight(p.FPWeight):
		return fmt.Errorf("sketch.fp_weight: must be a finite number >= 0, got %g", p.FPWeight)
	case !validWeight(p.FNWeight):
		return fmt.Errorf("sketch.fn_weight: must be a finite number >= 0, got %g", p.FNWeight)
	case p.FPWeight == 0 && p.FNWeight == 0:
		return fmt.Errorf("sketch.fp_weight, sketch.fn_weight: must not both be 0")
	case p.MaxBands < 1:
		return fmt.Errorf("sketch.max_bands: must be >= 1, got %d", p.MaxBands)
	case p.Bands < 1:
		return fmt.Errorf("sketch.bands: must be >= 1, got %d", p.Bands)
	case p.Rows < 1:
		return fmt.Errorf("sketch.rows: must be >= 1, got %d", p.Rows)
	case p.Bands > p.NumPerm/p.Rows:
		return fmt.Errorf("sketch.bands, sketch.rows: bands*rows must be <= num_perm %d, got %d*%d",
			p.NumPerm, p.Bands, p.Rows)
	case p.Seed == 0:
		return fmt.Errorf("sketch.seed: must not be 0 (EnsureDefaults sets 1)")
	}
	return nil
}

func validWeight(w float64) bool {
	return w >= 0 && !math.IsInf(w, 1)
}

// Version returns a short name of the sketch parameters for the
// dedup.sketch header, such as "minhash128-b9r13-w5"; a seed other than 1 is
// appended as "-s7". Threshold and weights are not part of it: they change
// decisions, not sketches.
func (p Params) Version() string {
	return bandedVersion(MethodMinHash, p, Shingling{Length: p.Shingle, Offset: 1})
}
