package lsh

import (
	"math"
	"slices"
	"strconv"
)

// ModM samples the shingles whose hash is ≡ 0 (mod m) (Broder's MOD_m; one
// source paper's method of choice with m = 25 and 4-word shingles). The
// hash is h(x) = mix64(x ⊕ key), a bijection, and the sample holds the
// hashes themselves, so each distinct shingle is kept independently with
// probability about 1/m and the sample of A ∪ B is the union of the samples
// of A and B. A ModM is immutable and safe for concurrent use.
//
// The sketch has variable size, about |A|/m values, which is what lets it
// estimate containment (a fixed-size sketch of a large document says little
// about a small one inside it). With S_A, S_B the samples (EstimateModM):
//
//	resemblance  |S_A ∩ S_B| / |S_A ∪ S_B|
//	A in B       |S_A ∩ S_B| / |S_A|
//	B in A       |S_A ∩ S_B| / |S_B|
//
// Which is unbiased: all three, conditionally. Given |S_A ∪ S_B| = s > 0,
// the sample of the union is a uniform s-subset of A ∪ B (each element was
// kept independently with the same probability), so the number of its
// elements in A ∩ B is hypergeometric with mean s·J: the resemblance
// estimate is exactly unbiased given a non-empty union sample, and likewise
// each containment given a non-empty S_A (resp. S_B). Unconditionally each
// is biased low by J·P(empty sample) = J·(1−1/m)^|A∪B|, because an empty
// sample estimates 0; for 5-word shingles of a 3 KB page (≈500 shingles,
// m = 25) that is at most 1.4e−9. Their spread is that of a ratio with a random
// denominator: standard error ≈ sqrt(J(1−J)/s) with s ≈ |A∪B|/m, so small
// documents are estimated coarsely (s ≈ 20 for a 3 KB page: ±0.1 at J = 0.5)
// and documents under about m shingles often have no sample at all.
// (The alternative containment estimate |S_A ∩ S_B|·m/|A|, with the true
// |A|, is unbiased unconditionally but has a larger variance.)
type ModM struct {
	m   uint64
	key uint64
}

// NewModM returns a ModM keeping hashes ≡ 0 (mod m). It panics if m < 1.
func NewModM(m int, seed uint64) *ModM {
	if m < 1 {
		panic("lsh: NewModM: m < 1")
	}
	state := seed ^ 0x6d6f642d6d2d2d21 // "mod-m--!"
	return &ModM{m: uint64(m), key: splitmix64(&state)}
}

// Sketch appends the distinct sampled hashes of the shingles to dst,
// ascending, and returns the extended slice.
func (s *ModM) Sketch(dst []uint64, shingles []uint64) []uint64 {
	base := len(dst)
	for _, x := range shingles {
		if h := mix64(x ^ s.key); h%s.m == 0 {
			dst = append(dst, h)
		}
	}
	slices.Sort(dst[base:])
	return dst[:base+len(slices.Compact(dst[base:]))]
}

// EstimateModM returns the three estimates from two samples (ascending,
// as Sketch returns them). Near is left false.
func EstimateModM(a, b []uint64) Estimate {
	return OverlapOf(a, b).estimate()
}

// modmMethod is the modm Method. Its keys are the sampled hashes
// themselves, matched as a set — a containment index: a small document
// inside a large one shares its whole sample with it.
type modmMethod struct {
	s         *ModM
	threshold float64
	sh        Shingling
	version   string
}

func newModMMethod(c Config, sh Shingling) *modmMethod {
	v := strconv.AppendInt([]byte(MethodModM), int64(c.ModM.M), 10)
	v = appendSeed(sh.appendVersion(append(v, '-')), c.Params.Seed)
	return &modmMethod{s: NewModM(c.ModM.M, c.Params.Seed), threshold: c.Params.Threshold, sh: sh, version: string(v)}
}

func (m *modmMethod) Name() string    { return MethodModM }
func (m *modmMethod) Version() string { return m.version }
func (m *modmMethod) KeyBands() int   { return 0 }

func (m *modmMethod) shingling() Shingling { return m.sh }

func (m *modmMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.shingles = m.sh.appendScratch(sc, sc.shingles[:0], text)
	return m.sketchShingles(sc, sketch, keys)
}

func (m *modmMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.hashes = m.s.Sketch(sc.hashes[:0], sc.shingles)
	return appendSet(sketch, sc.hashes), append(keys, sc.hashes...)
}

func (m *modmMethod) Compare(a, b []byte) (Estimate, error) {
	return compareSets(a, b, m.threshold)
}

// compareSets estimates from two encoded sets: the samples of modm or the
// whole sets of full.
func compareSets(a, b []byte, threshold float64) (Estimate, error) {
	o, err := overlapBytes(a, b)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	e := o.estimate()
	e.Near = e.Resemblance >= threshold
	return e, nil
}

func (m *modmMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	return m.fingerprints(dst, sketch)
}

func (m *modmMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	set, err := setOf(sketch, math.MaxInt)
	return append(dst, set...), err
}
