package lsh

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// MethodRecord is the Name of the record-mode Method (RecordConfig).
const MethodRecord = "record"

// Separators of the record text a RecordMethod sketches. Normalised text
// never contains control characters, so they cannot occur inside a field.
const (
	RecordFieldSep = 0x1e // between fields, in configuration order
	RecordItemSep  = 0x1f // between the author keys of an authors field
)

// RecordMethod is the Method of record mode. Its input text is the record's
// fields in configuration order joined by RecordFieldSep, each normalised
// (authors: normalised name keys joined by RecordItemSep; year: four digits;
// missing: empty). Every field is sketched on its own with its name mixed
// into each fingerprint, so equal words in two fields never match:
//
//   - text and authors: a MinHash signature of NumPerm values over the
//     field's tagged shingles (author keys are the "shingles" of authors, so
//     their order does not matter), with LSH band keys chosen for
//     sketch.threshold as for the minhash method;
//   - year and exact: one tagged fingerprint; exact fields give one index key,
//     years none.
//
// Compare estimates each field's resemblance on the fields both records have
// and returns their weighted mean (a field missing on either side is left out
// of numerator and denominator alike, not counted as equal); Near needs at
// least MinFields such fields and the mean at or above the threshold. A
// RecordMethod is immutable and safe for concurrent use.
type RecordMethod struct {
	cfg       RecordConfig
	s         *Sketcher
	tags      []uint64
	threshold float64
	version   string
	size      int // encoded sketch bytes
}

// NewRecordMethod returns the record Method for rc, using sketch's
// threshold, max_bands, false-positive and false-negative weights and seed (its method
// and other keys are not read). Both must have been through EnsureDefaults.
func NewRecordMethod(rc RecordConfig, sketch Config) (*RecordMethod, error) {
	if err := rc.Validate(); err != nil {
		return nil, err
	}
	sp := sketch.Params
	p := Params{Shingle: 1, NumPerm: rc.NumPerm, Threshold: sp.Threshold, MaxBands: sp.MaxBands, FPWeight: sp.FPWeight, FNWeight: sp.FNWeight, Seed: sp.Seed}
	p.EnsureDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &RecordMethod{cfg: rc, s: NewSketcher(p), threshold: p.Threshold, size: 8}
	for _, f := range rc.Fields {
		m.tags = append(m.tags, xxhash.Sum64String("record field "+f.Name))
		m.size += m.fieldSize(f)
	}
	m.version = m.makeVersion()
	return m, nil
}

func (m *RecordMethod) fieldSize(f RecordField) int {
	if f.hashed() {
		return 4 * m.cfg.NumPerm
	}
	return 8
}

// makeVersion names every parameter that changes sketches or keys, e.g.
// "record32-b8r4-title:text.c4,authors:authors,abstract:text.w3,year:year".
// A field read from a path other than its name shows it after "@".
func (m *RecordMethod) makeVersion() string {
	p := m.s.Params()
	var b strings.Builder
	fmt.Fprintf(&b, "record%d-b%dr%d-", p.NumPerm, p.Bands, p.Rows)
	for i, f := range m.cfg.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.Name)
		if f.Path != f.Name {
			b.WriteString("@" + f.Path)
		}
		b.WriteString(":" + f.Kind)
		if f.Kind == KindText {
			b.WriteString("." + f.Shingle.shingling().Version())
		}
	}
	if p.Seed != 1 {
		b.WriteString("-s" + strconv.FormatUint(p.Seed, 10))
	}
	return b.String()
}

// Fields returns the configured fields, in order. The caller must not
// modify them.
func (m *RecordMethod) Fields() []RecordField { return m.cfg.Fields }

// MinFields returns RecordConfig.MinFields.
func (m *RecordMethod) MinFields() int { return m.cfg.MinFields }

func (m *RecordMethod) Name() string    { return MethodRecord }
func (m *RecordMethod) Version() string { return m.version }

// KeyBands is 0: the number of keys varies with the fields present, and every
// key mixes in its field and band.
func (m *RecordMethod) KeyBands() int { return 0 }

// Sketch sketches a record text (see RecordMethod). Fields past the
// configured number are ignored; fields short of it are missing.
func (m *RecordMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	start := len(sketch)
	sketch = append(sketch, make([]byte, m.size)...)
	out := sketch[start:]
	var present uint64
	off := 8
	for i, f := range m.cfg.Fields {
		var field []byte
		if text != nil {
			field, text, _ = bytes.Cut(text, []byte{RecordFieldSep})
		}
		dst := out[off : off+m.fieldSize(f)]
		off += len(dst)
		if len(field) == 0 {
			fillMissing(dst, f.hashed())
			continue
		}
		var ok bool
		if keys, ok = m.sketchField(sc, i, field, dst, keys); ok {
			present |= 1 << i
		}
	}
	binary.LittleEndian.PutUint64(out, present)
	return sketch, keys
}

func fillMissing(dst []byte, hashed bool) {
	if hashed {
		for j := 0; j < len(dst); j += 4 {
			binary.LittleEndian.PutUint32(dst[j:], math.MaxUint32)
		}
	}
}

// sketchField writes field i's sketch into dst and appends its keys. It
// reports false, with dst marked missing, for a field with nothing to
// sketch (an authors field of separators only).
func (m *RecordMethod) sketchField(sc *Scratch, i int, field, dst []byte, keys []uint64) ([]uint64, bool) {
	f, tag := m.cfg.Fields[i], m.tags[i]
	if !f.hashed() {
		fp := mix64(xxhash.Sum64(field) ^ tag)
		binary.LittleEndian.PutUint64(dst, fp)
		if f.indexed() {
			keys = append(keys, mix64(fp+0x9e3779b97f4a7c15))
		}
		return keys, true
	}
	sc.shingles = m.fieldShingles(sc.shingles[:0], f, field)
	if len(sc.shingles) == 0 {
		fillMissing(dst, true)
		return keys, false
	}
	for j, x := range sc.shingles {
		sc.shingles[j] = mix64(x ^ tag)
	}
	sc.sig = m.s.Signature(sc.sig, sc.shingles)
	for j, v := range sc.sig {
		binary.LittleEndian.PutUint32(dst[4*j:], v)
	}
	n := len(keys)
	keys = m.s.BandKeys(keys, sc.sig)
	for j := n; j < len(keys); j++ {
		keys[j] = mix64(keys[j] ^ tag)
	}
	return keys, true
}

// fieldShingles appends the untagged fingerprints of a text field's
// shingles, or of each author key of an authors field.
func (m *RecordMethod) fieldShingles(dst []uint64, f RecordField, field []byte) []uint64 {
	if f.Kind == KindText {
		return f.Shingle.shingling().Append(dst, field)
	}
	for len(field) > 0 {
		var name []byte
		name, field, _ = bytes.Cut(field, []byte{RecordItemSep})
		if len(name) > 0 {
			dst = append(dst, xxhash.Sum64(name))
		}
	}
	return dst
}
