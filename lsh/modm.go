package lsh

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// ModM samples the shingles whose hash is ≡ 0 (mod m) (Broder's MOD_m; one
// source paper's method of choice with m = 25 and 4-word shingles), with a
// floor: a page with fewer than n such hashes keeps its n smallest hashes as
// well (Broder's MIN_n, the bottom-n sketch). The hash is h(x) = mix64(x ⊕
// key), a bijection, and the sample holds the hashes themselves. A ModM is
// immutable and safe for concurrent use.
//
// The sketch has variable size, about |A|/m values (at least n, or all of A
// when it has fewer), which is what lets it estimate containment: a
// fixed-size sketch of a large document says little about a small one
// inside it.
//
// Why the floor. Without it a short page keeps about |A|/m values — 2 or 3
// for a 65-shingle page at m = 25 — and one shared footer shingle among them
// estimates resemblance, or containment, 1.
//
// Estimators (Estimate). Call a sketch long when it holds at least n values
// ≡ 0 (mod m): it is then exactly those. Otherwise its n smallest values are
// the n smallest hashes of its page (or it is the whole page, when it has
// fewer than n values); let τ be its n-th smallest value (+∞ for a whole
// page), and τ = −∞ for a long sketch. For two sketches let τ = min(τ_A, τ_B)
// and U the hashes of A ∪ B that are ≡ 0 (mod m) or below τ. A value of U is
// in S_A exactly when it is in A (a value below τ ≤ τ_A is among A's n
// smallest if it is in A at all), and likewise for B, so with S_A, S_B the
// samples
//
//	resemblance  |U ∩ S_A ∩ S_B| / |U ∩ (S_A ∪ S_B)|
//	A in B       |U ∩ S_A ∩ S_B| / |U ∩ S_A|
//	B in A       |U ∩ S_A ∩ S_B| / |U ∩ S_B|
//
// U is a sample of A ∪ B chosen by the hash alone (the rule "≡ 0 mod m" for
// every value, and "below τ" as in bottom-k, with the value τ itself left
// out, since it is in its own sketch by construction and would bias the
// estimates up), so given its size each count is hypergeometric and each
// ratio unbiased, with standard error about sqrt(p(1−p)/s), s the
// denominator. Between two long pages this is plain mod-m; between two short
// ones U holds at least n−1 values; between a short and a long page it is
// the mod-m sample, at least the long page's n.
//
// Containment of a small page in a large one rests on few values: the small
// page's mod-m sample, or its values below the large page's τ. An estimate
// of A in B from fewer than MinSample = n/4 (at most 16) values of U ∩ S_A is
// not made: Estimate reports it as NaN, which is below every containment
// threshold, so such a page is never "contained" (unless both sketches are
// whole pages, when the counts are exact).
type ModM struct {
	div divisor // tests ≡ 0 (mod m)
	n   int
	key uint64
}

// NewModM returns a ModM keeping hashes ≡ 0 (mod m) and, for pages with
// fewer than n of them, the n smallest hashes (n = 0: no floor, plain
// MOD_m). It panics if m < 1 or n < 0.
func NewModM(m, n int, seed uint64) *ModM {
	if m < 1 || n < 0 {
		panic("lsh: NewModM: m < 1 or n < 0")
	}
	state := seed ^ 0x6d6f642d6d2d2d21 // "mod-m--!"
	return &ModM{div: newDivisor(uint64(m)), n: n, key: splitmix64(&state)}
}

// MinSample returns the fewest values of a page's sample that ModM estimates
// its containment from: n/4, at least 1 and at most 16.
func (s *ModM) MinSample() int { return max(1, min(16, s.n/4)) }

// Sketch appends the distinct sampled hashes of the shingles to dst,
// ascending, and returns the extended slice.
func (s *ModM) Sketch(dst []uint64, shingles []uint64) []uint64 {
	base := len(dst)
	for _, x := range shingles {
		if h := mix64(x ^ s.key); s.div.divides(h) {
			dst = append(dst, h)
		}
	}
	slices.Sort(dst[base:])
	dst = dst[:base+len(slices.Compact(dst[base:]))]
	if len(dst)-base >= s.n {
		return dst
	}
	dst = appendSmallest(dst, shingles, s.key, s.n)
	slices.Sort(dst[base:])
	return dst[:base+len(slices.Compact(dst[base:]))]
}

// sampleLimit returns the bound τ of an encoded sample: 0 for a long
// sketch (no value is below it), its n-th smallest value for a short one,
// and whole for a whole page.
func (s *ModM) sampleLimit(set []byte) (tau uint64, whole bool) {
	if len(set)/8 < s.n {
		return math.MaxUint64, true
	}
	mod := 0
	for i := range len(set) / 8 {
		if s.div.divides(le64(set, i)) {
			mod++
		}
	}
	if mod >= s.n {
		return 0, false
	}
	return le64(set, s.n-1), false
}

// Estimate returns the estimates from two samples (ascending, as Sketch
// returns them); see ModM. Near is left false.
func (s *ModM) Estimate(a, b []uint64) Estimate {
	return s.estimate(appendSet(nil, a), appendSet(nil, b))
}

// estimate is Estimate on two encoded samples.
func (s *ModM) estimate(a, b []byte) Estimate {
	o, exact := s.sampleOverlap(a, b)
	e := o.estimate()
	if !exact && o.SizeA < s.MinSample() {
		e.AinB = math.NaN()
	}
	if !exact && o.SizeB < s.MinSample() {
		e.BinA = math.NaN()
	}
	return e
}

// Overlap returns the counts the estimates of two samples (ascending, as
// Sketch returns them) are made of — |U ∩ S_A ∩ S_B|, |U ∩ S_A| and
// |U ∩ S_B| (see ModM) — and whether they are exact (both samples whole
// pages): the sample sizes that bound the estimates' errors.
func (s *ModM) Overlap(a, b []uint64) (o Overlap, exact bool) {
	return s.sampleOverlap(appendSet(nil, a), appendSet(nil, b))
}

// sampleOverlap is Overlap on two encoded samples.
func (s *ModM) sampleOverlap(a, b []byte) (o Overlap, exact bool) {
	ta, wa := s.sampleLimit(a)
	tb, wb := s.sampleLimit(b)
	tau := min(ta, tb)
	exact = wa && wb
	in := func(x uint64) bool { return exact || x < tau || s.div.divides(x) }
	na, nb := len(a)/8, len(b)/8
	for i, j := 0, 0; i < na || j < nb; {
		switch {
		case j == nb || i < na && le64(a, i) < le64(b, j):
			if in(le64(a, i)) {
				o.SizeA++
			}
			i++
		case i == na || le64(b, j) < le64(a, i):
			if in(le64(b, j)) {
				o.SizeB++
			}
			j++
		default:
			if in(le64(a, i)) {
				o.Inter, o.SizeA, o.SizeB = o.Inter+1, o.SizeA+1, o.SizeB+1
			}
			i++
			j++
		}
	}
	return o, exact
}

// modmMethod is the modm Method. Its keys are the sampled hashes ≡ 0 (mod m)
// — a containment index: a small document inside a large one shares all of
// them with it — and, for a short page, its MinSample smallest hashes, so
// that two short near-duplicates (which may share no value ≡ 0 mod m) share
// a key with probability at least 1−(1−J)^MinSample.
type modmMethod struct {
	s         *ModM
	m         int
	smallest  int // a short page's smallest values that are keys too
	threshold float64
	sh        Shingling
	version   string
}

func newModMMethod(c Config, sh Shingling) *modmMethod {
	m := &modmMethod{s: NewModM(c.ModM.M, c.ModM.Min, c.Params.Seed), m: c.ModM.M, threshold: c.Params.Threshold, sh: sh}
	m.smallest = m.s.MinSample()
	v := m.appendParams([]byte(MethodModM))
	m.version = string(appendSeed(sh.appendVersion(append(v, '-')), c.Params.Seed))
	return m
}

// appendParams appends "<m>-n<min>".
func (m *modmMethod) appendParams(v []byte) []byte {
	v = strconv.AppendInt(v, int64(m.m), 10)
	return strconv.AppendInt(append(v, "-n"...), int64(m.s.n), 10)
}

func (m *modmMethod) Name() string    { return MethodModM }
func (m *modmMethod) Version() string { return m.version }
func (m *modmMethod) KeyBands() int   { return 0 }

func (m *modmMethod) shingling() Shingling { return m.sh }

func (m *modmMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *modmMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.hashes = m.s.Sketch(sc.hashes[:0], sc.shingles)
	return appendSet(sketch, sc.hashes), m.appendKeys(keys, sc.hashes)
}

// appendKeys appends the keys of a sample: its values ≡ 0 (mod m) and, if
// it is short, its m.smallest smallest.
func (m *modmMethod) appendKeys(keys, set []uint64) []uint64 {
	mod := 0
	for _, h := range set {
		if m.s.div.divides(h) {
			mod++
		}
	}
	short := mod < m.s.n
	for i, h := range set {
		if m.s.div.divides(h) || short && i < m.smallest {
			keys = append(keys, h)
		}
	}
	return keys
}

func (m *modmMethod) Compare(a, b []byte) (Estimate, error) {
	if err := checkSets(a, b); err != nil {
		return Estimate{Distance: -1}, err
	}
	e := m.s.estimate(a, b)
	e.Near = e.Resemblance >= m.threshold
	return e, nil
}

// compareSets estimates from two encoded whole sets (full).
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
	set, err := setOf(sketch, math.MaxInt)
	return m.appendKeys(dst, set), err
}

func (m *modmMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	set, err := setOf(sketch, math.MaxInt)
	return append(dst, set...), err
}

// divisor tests divisibility by a fixed m without dividing (Hacker's Delight
// §10-17): with m = m₀·2^k, m₀ odd, and inv the inverse of m₀ modulo 2^64,
// x ≡ 0 (mod m) exactly when rotr(x·inv, k) ≤ ⌊(2^64−1)/m⌋. A hardware
// division costs tens of cycles, and Compare tests every sampled value.
type divisor struct {
	inv, lim uint64
	k        int
}

func newDivisor(m uint64) divisor {
	k := bits.TrailingZeros64(m)
	odd := m >> k
	inv := odd // Newton's iteration doubles the correct low bits: 3, 6, …, 96
	for range 5 {
		inv *= 2 - odd*inv
	}
	return divisor{inv: inv, lim: math.MaxUint64 / m, k: k}
}

// divides reports whether x ≡ 0 (mod m).
func (d divisor) divides(x uint64) bool { return bits.RotateLeft64(x*d.inv, -d.k) <= d.lim }
