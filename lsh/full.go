package lsh

import (
	"math"
	"strconv"
)

// fullMethod is the full Method: the sketch is the whole set of shingle
// fingerprints, sorted and without repeats (8 bytes per distinct shingle),
// so resemblance and both containments are exact (up to 64-bit fingerprint
// collisions). Its keys are every fingerprint, matched as a set — an
// inverted index that finds every pair sharing a shingle, which is exact
// but costs one posting per shingle: for small collections, and as the
// oracle the other methods are measured against.
//
// The keys are bounded by full.max_keys: a document with more distinct
// shingles is keyed by its maxKeys smallest fingerprints only (the sketch
// keeps them all, so Compare stays exact). Fingerprints are uniform hashes,
// so those are a bottom-k sample: two such documents at resemblance J share
// at least one key unless none of the smallest maxKeys of their union is in
// both, which has probability about (1−J)^maxKeys. Scratch.KeysCut reports a
// cut, for the caps metric.
type fullMethod struct {
	threshold float64
	maxKeys   int
	sh        Shingling
	version   string
}

func newFullMethod(c Config, sh Shingling) *fullMethod {
	v := MethodFull + "-" + sh.Version() + "-k" + strconv.Itoa(c.Full.MaxKeys)
	return &fullMethod{threshold: c.Params.Threshold, maxKeys: c.Full.MaxKeys, sh: sh, version: v}
}

func (m *fullMethod) Name() string    { return MethodFull }
func (m *fullMethod) Version() string { return m.version }
func (m *fullMethod) KeyBands() int   { return 0 }

func (m *fullMethod) shingling() Shingling { return m.sh }

func (m *fullMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *fullMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.shingles = SortedSet(sc.shingles)
	k := m.keyed(sc.shingles)
	sc.keysCut = len(sc.shingles) - len(k)
	return appendSet(sketch, sc.shingles), append(keys, k...)
}

// keyed returns the fingerprints of set that are index keys: its maxKeys
// smallest.
func (m *fullMethod) keyed(set []uint64) []uint64 { return set[:min(m.maxKeys, len(set))] }

func (m *fullMethod) Compare(a, b []byte) (Estimate, error) {
	return compareSets(a, b, m.threshold)
}

func (m *fullMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	set, err := setOf(sketch, math.MaxInt)
	return append(dst, m.keyed(set)...), err
}

func (m *fullMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	set, err := setOf(sketch, math.MaxInt)
	return append(dst, set...), err
}
