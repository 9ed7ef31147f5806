package lsh

import (
	"encoding/binary"
	"fmt"
)

// FieldSimilarity is one field's part in a record comparison.
type FieldSimilarity struct {
	Name   string
	Kind   string
	Weight float64
	InA    bool // the field is present in A
	InB    bool // the field is present in B
	// Similarity is the estimated resemblance of the field's shingle sets
	// (author key sets for authors), or 1 or 0 for year and exact fields.
	// It is 0, and not counted, unless the field is in both.
	Similarity float64
}

// Comparable reports whether the field counts: it is present in both records.
func (f FieldSimilarity) Comparable() bool { return f.InA && f.InB }

// RecordComparison is the result of RecordMethod.CompareFields.
type RecordComparison struct {
	Fields     []FieldSimilarity // in configuration order
	Comparable int               // fields present in both
	// Similarity is Σ weight·similarity / Σ weight over the comparable
	// fields; 0 when there are none.
	Similarity float64
	Near       bool // Comparable ≥ MinFields and Similarity ≥ threshold
}

// Compare returns the weighted similarity of two record sketches as the
// Estimate's Resemblance; see RecordMethod. It does not allocate.
func (m *RecordMethod) Compare(a, b []byte) (Estimate, error) {
	if err := m.checkSizes(a, b); err != nil {
		return Estimate{Distance: -1}, err
	}
	pa, pb := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b)
	var num, den float64
	n := 0
	off := 8
	for i, f := range m.cfg.Fields {
		size := m.fieldSize(f)
		if pa&pb&(1<<i) != 0 {
			num += f.Weight * fieldSimilarity(f, a[off:off+size], b[off:off+size])
			den += f.Weight
			n++
		}
		off += size
	}
	sim := 0.0
	if den > 0 {
		sim = num / den
	}
	return Estimate{Resemblance: sim, Distance: -1, Near: n >= m.cfg.MinFields && sim >= m.threshold}, nil
}

// CompareFields is Compare with every field's part shown.
func (m *RecordMethod) CompareFields(a, b []byte) (RecordComparison, error) {
	est, err := m.Compare(a, b)
	if err != nil {
		return RecordComparison{}, err
	}
	pa, pb := binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(b)
	c := RecordComparison{Similarity: est.Resemblance, Near: est.Near}
	off := 8
	for i, f := range m.cfg.Fields {
		size := m.fieldSize(f)
		fs := FieldSimilarity{Name: f.Name, Kind: f.Kind, Weight: f.Weight, InA: pa&(1<<i) != 0, InB: pb&(1<<i) != 0}
		if fs.Comparable() {
			fs.Similarity = fieldSimilarity(f, a[off:off+size], b[off:off+size])
			c.Comparable++
		}
		c.Fields = append(c.Fields, fs)
		off += size
	}
	return c, nil
}

func (m *RecordMethod) checkSizes(a, b []byte) error {
	if len(a) != m.size || len(b) != m.size {
		return fmt.Errorf("%w: record sketches of %d and %d bytes, want %d", ErrSketch, len(a), len(b), m.size)
	}
	if extra := ^uint64(0) << len(m.cfg.Fields); (binary.LittleEndian.Uint64(a)|binary.LittleEndian.Uint64(b))&extra != 0 {
		return fmt.Errorf("%w: record sketch marks fields past the %d configured", ErrSketch, len(m.cfg.Fields))
	}
	return nil
}

// fieldSimilarity compares one field present in both sketches: the share of
// equal MinHash values, or equality of the fingerprints.
func fieldSimilarity(f RecordField, a, b []byte) float64 {
	if !f.hashed() {
		return btof(binary.LittleEndian.Uint64(a) == binary.LittleEndian.Uint64(b))
	}
	return float64(agreeing(a, b)) / float64(len(a)/4)
}

func btof(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
