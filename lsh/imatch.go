package lsh

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/cespare/xxhash/v2"

	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// IMatch computes I-Match lexical signatures (Chowdhury, Frieder, Grossman
// and McCabe 2002): the document's distinct words are filtered by their
// collection statistics and the sorted survivors are hashed into one 64-bit
// value, so two documents match when they use the same set of
// "descriptive" words, whatever their order and counts.
//
// Two filters:
//
//   - "idf": keep words whose normalised idf, ln(N/df)/ln(N), lies in
//     [low, high] — dropping the most common words (low idf) and the
//     rarest ones (typos, numbers, names), which carry noise rather than
//     content;
//   - "cf": keep words whose collection frequency (total occurrences in the
//     Vocabulary's documents) lies in [low, high] — the "words with
//     collection frequency in an interval" variant of the lexical
//     signature.
//
// A word the Vocabulary never saw counts as df = cf = 1 (NIDF 1). Words are
// ordered by fingerprint, not by spelling: the order only has to be
// canonical. A document with fewer than minWords surviving words has no
// signature. An IMatch is immutable and safe for concurrent use.
type IMatch struct {
	v        *vocab.Vocabulary
	keep     map[uint64]struct{} // the selected words of v
	unseen   bool                // whether words v never saw are selected
	minWords int
}

// NewIMatch returns an IMatch selecting words of v by p (defaults applied
// by the caller; p must be valid).
func NewIMatch(v *vocab.Vocabulary, p IMatchParams) *IMatch {
	stat := func(df, cf int64) float64 {
		if p.Select == "cf" {
			return float64(max(cf, 1))
		}
		return v.NIDFOf(max(df, 1))
	}
	in := func(x float64) bool { return x >= p.Low && x <= p.High }
	m := &IMatch{v: v, keep: make(map[uint64]struct{}), minWords: p.MinWords, unseen: in(stat(0, 0))}
	for fp, t := range v.All() {
		if in(stat(t.DF, t.CF)) {
			m.keep[fp] = struct{}{}
		}
	}
	return m
}

// selected reports whether the word with fingerprint w passes the filter.
func (m *IMatch) selected(w uint64) bool {
	if _, ok := m.keep[w]; ok {
		return true
	}
	return m.unseen && !m.v.Has(w)
}

// Select appends to dst the distinct words of words (fingerprints from
// AppendWords, in any order, repeats allowed) that pass the filter, sorted,
// and returns the extended slice.
func (m *IMatch) Select(dst, words []uint64) []uint64 {
	base := len(dst)
	for _, w := range words {
		if m.selected(w) {
			dst = append(dst, w)
		}
	}
	return dst[:base+len(SortedSet(dst[base:]))]
}

// Signature returns the signature of a selection (as Select returns it),
// or false when it holds fewer than minWords words.
func (m *IMatch) Signature(selected []uint64) (uint64, bool) {
	if len(selected) < m.minWords {
		return 0, false
	}
	var d xxhash.Digest
	d.Reset()
	var b [8]byte
	for _, w := range selected {
		binary.LittleEndian.PutUint64(b[:], w)
		_, _ = d.Write(b[:])
	}
	return d.Sum64(), true
}

// imatchMethod is the imatch Method: an 8-byte sketch (empty when the
// document has no signature) and the signature as its single key.
type imatchMethod struct {
	m       *IMatch
	version string
}

func newIMatchMethod(p IMatchParams, v *vocab.Vocabulary) *imatchMethod {
	b := []byte(MethodIMatch + "-" + p.Select)
	b = strconv.AppendFloat(b, p.Low, 'g', -1, 64)
	b = strconv.AppendFloat(append(b, '-'), p.High, 'g', -1, 64)
	b = strconv.AppendInt(append(b, "-m"...), int64(p.MinWords), 10)
	b = appendDigest(append(b, "-v"...), v.Digest())
	return &imatchMethod{m: NewIMatch(v, p), version: string(b)}
}

func (m *imatchMethod) Name() string    { return MethodIMatch }
func (m *imatchMethod) Version() string { return m.version }
func (m *imatchMethod) KeyBands() int   { return 1 }

func (m *imatchMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.keysCut = 0
	sc.shingles = AppendWords(sc.shingles[:0], text)
	sc.hashes = m.m.Select(sc.hashes[:0], sc.shingles)
	sig, ok := m.m.Signature(sc.hashes)
	if !ok {
		return sketch, keys
	}
	return binary.LittleEndian.AppendUint64(sketch, sig), append(keys, sig)
}

// Compare reports resemblance 1 and near when both documents have a
// signature and the signatures are equal, else 0.
func (m *imatchMethod) Compare(a, b []byte) (Estimate, error) {
	if len(a) != 0 && len(a) != 8 || len(b) != 0 && len(b) != 8 {
		return Estimate{Distance: -1}, fmt.Errorf("%w: imatch sketches of %d and %d bytes, want 0 or 8", ErrSketch, len(a), len(b))
	}
	if len(a) == 0 || len(b) == 0 || le64(a, 0) != le64(b, 0) {
		return Estimate{Distance: -1}, nil
	}
	return Estimate{Resemblance: 1, Distance: -1, Near: true}, nil
}

func (m *imatchMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	switch len(sketch) {
	case 0:
		return dst, nil
	case 8:
		return append(dst, le64(sketch, 0)), nil
	}
	return dst, fmt.Errorf("%w: imatch sketch of %d bytes, want 0 or 8", ErrSketch, len(sketch))
}
