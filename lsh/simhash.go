package lsh

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// SimHash computes Charikar's 64-bit fingerprints: bit b of the fingerprint
// is the sign of Σ_f w_f·(+1 if bit b of hash(f) is set, else −1) over the
// features f of a document. Each bit is a random ±1 projection of the
// weight vector, so two documents differ in bit b with probability close to
// θ/π, θ the angle between their weight vectors (cosine = cos θ), and the
// Hamming distance d of the fingerprints estimates it: θ ≈ π·d/64.
//
// Balance. The projections are only random if every bit of every feature's
// hash is an unbiased coin. Feature hashes here are h = mix64(x ⊕ key) of
// the 64-bit xxhash fingerprint x, fully avalanched. A naive hash — a
// polynomial string hash, or the word's bytes themselves — leaves the high
// bits of short words zero, so every sum is negative there and those bits
// are 0 in every document: they agree for all pairs, distances shrink and
// unrelated pages look near. TestSimHashBalancedBits shows the bias and
// that these fingerprints have no such bits.
//
// A SimHash is immutable and safe for concurrent use.
type SimHash struct {
	key    uint64
	spread [256]uint64 // spread[v] has byte l = bit l of v
}

// NewSimHash returns a SimHash whose feature hashes are derived from seed.
func NewSimHash(seed uint64) *SimHash {
	state := seed ^ 0x73696d686173682a // "simhash*"
	s := &SimHash{key: splitmix64(&state)}
	for v := range s.spread {
		for l := range 8 {
			s.spread[v] |= uint64(v>>l&1) << (8 * l)
		}
	}
	return s
}

// Fingerprint returns the SimHash of the features with weight 1 per
// occurrence, so a repeated feature weighs its term frequency (the simhash
// Method passes each distinct feature once; see simHashMethod). No features
// give 0.
//
// The ±1 sums are kept as per-bit counts of ones: for each byte of the hash
// a table turns the byte into eight one-byte counters added at once, so a
// feature costs eight table loads and adds instead of 64 branches.
func (s *SimHash) Fingerprint(features []uint64) uint64 {
	var ones [64]int
	n := len(features)
	for len(features) > 0 {
		chunk := features[:min(255, len(features))] // byte counters hold 255
		features = features[len(chunk):]
		var acc [8]uint64
		for _, x := range chunk {
			h := mix64(x ^ s.key)
			acc[0] += s.spread[h&0xff]
			acc[1] += s.spread[h>>8&0xff]
			acc[2] += s.spread[h>>16&0xff]
			acc[3] += s.spread[h>>24&0xff]
			acc[4] += s.spread[h>>32&0xff]
			acc[5] += s.spread[h>>40&0xff]
			acc[6] += s.spread[h>>48&0xff]
			acc[7] += s.spread[h>>56]
		}
		for p, a := range acc {
			for l := range 8 {
				ones[8*p+l] += int(a >> (8 * l) & 0xff)
			}
		}
	}
	var fp uint64
	for b, c := range ones {
		if 2*c > n {
			fp |= 1 << b
		}
	}
	return fp
}

// Weighted returns the SimHash of features[i] with weight weights[i] (for
// example idf per occurrence, which sums to tf·idf). The slices must have
// equal length. Bits whose sum is not positive are 0.
func (s *SimHash) Weighted(features []uint64, weights []float64) uint64 {
	var sum [64]float64
	weights = weights[:len(features)]
	for i, x := range features {
		h := mix64(x ^ s.key)
		w := weights[i]
		pm := [2]float64{-w, w}
		for b := range sum {
			sum[b] += pm[h>>b&1]
		}
	}
	var fp uint64
	for b, v := range sum {
		if v > 0 {
			fp |= 1 << b
		}
	}
	return fp
}

// Hamming returns the number of bits in which a and b differ.
func Hamming(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// simHashMethod is the simhash Method: features are the shingles (or
// words), weighted per SimHashParams.TF and optionally by idf; keys come from
// permuted tables (SimHashIndex).
//
// Why not term frequency. A fingerprint bit is the sign of a weighted sum,
// so a feature whose weight exceeds the sum of the others' decides every
// bit. Mail and crawled pages are full of runs of one token — a
// quoted-printable "=3D=3D=3D…" or "=09=09…" line, a table of identical
// cells — and each such run is one 5-word shingle repeated hundreds of
// times. Weighted by tf, two unrelated texts of 120 words ending in the same
// run of 300 get the same fingerprint (distance 0). Counting each distinct
// feature once ("set", the default) makes the fingerprint a projection of
// the shingle *set*, so the Hamming distance tracks resemblance as the other
// methods measure it; "log" keeps a little of the tf signal, 1 + ln tf
// capped at simHashLogCap, so a run weighs at most as much as four distinct
// shingles.
type simHashMethod struct {
	s       *SimHash
	idx     *SimHashIndex
	vocab   *vocab.Vocabulary // nil unless idf
	tf      string            // SimHashParams.TF
	sh      Shingling
	version string
}

// simHashLogCap bounds a feature's weight under tf "log". Changing it
// changes every fingerprint: it must change the "-tflog" version suffix.
const simHashLogCap = 4

func newSimHashMethod(c Config, sh Shingling, vocab *vocab.Vocabulary) *simHashMethod {
	p := c.SimHash
	if p.Words {
		sh = Shingling{Length: 1, Offset: 1, StopWords: sh.StopWords, Stem: sh.Stem}
	}
	if !p.IDF {
		vocab = nil
	}
	idx, err := NewSimHashIndex(p.Distance, p.Blocks)
	if err != nil {
		panic("lsh: newSimHashMethod: " + err.Error()) // Validate checked it
	}
	v := []byte(MethodSimHash + "64-k")
	v = strconv.AppendInt(v, int64(p.Distance), 10)
	v = strconv.AppendInt(append(v, 'b'), int64(p.Blocks), 10)
	v = sh.appendVersion(append(v, '-'))
	if vocab != nil {
		v = append(v, "-idf"...)
		v = appendDigest(v, vocab.Digest())
	}
	if p.TF != SimHashTFCount { // count keeps the version it always had
		v = append(append(v, "-tf"...), p.TF...)
	}
	v = appendSeed(v, c.Params.Seed)
	return &simHashMethod{s: NewSimHash(c.Params.Seed), idx: idx, vocab: vocab, tf: p.TF, sh: sh, version: string(v)}
}

// appendDigest appends 8 hex digits of a vocabulary digest.
func appendDigest(v []byte, d uint64) []byte {
	const hex = "0123456789abcdef"
	for i := 28; i >= 0; i -= 4 {
		v = append(v, hex[d>>(32+i)&0xf])
	}
	return v
}

func (m *simHashMethod) Name() string    { return MethodSimHash }
func (m *simHashMethod) Version() string { return m.version }
func (m *simHashMethod) KeyBands() int   { return m.idx.Tables() }

func (m *simHashMethod) shingling() Shingling { return m.sh }

func (m *simHashMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *simHashMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	fp := m.fingerprint(sc)
	if len(sc.shingles) > 0 {
		keys = m.idx.AppendKeys(keys, fp)
	}
	return binary.LittleEndian.AppendUint64(sketch, fp), keys
}

// fingerprint weighs the features in sc.shingles as m.tf and m.vocab say.
func (m *simHashMethod) fingerprint(sc *Scratch) uint64 {
	feats := sc.shingles
	if m.tf == SimHashTFCount {
		if m.vocab == nil {
			return m.s.Fingerprint(feats)
		}
		sc.weights = sc.weights[:0]
		for _, x := range feats {
			sc.weights = append(sc.weights, m.vocab.IDF(x))
		}
		return m.s.Weighted(feats, sc.weights)
	}
	sc.terms.count(feats)
	feats = sc.terms.distinct
	if m.tf == SimHashTFSet && m.vocab == nil {
		return m.s.Fingerprint(feats)
	}
	sc.weights = sc.weights[:0]
	for i, x := range feats {
		w := 1.0
		if m.tf == SimHashTFLog {
			w = min(1+math.Log(float64(sc.terms.counts[i])), simHashLogCap)
		}
		if m.vocab != nil {
			w *= m.vocab.IDF(x)
		}
		sc.weights = append(sc.weights, w)
	}
	return m.s.Weighted(feats, sc.weights)
}

func (m *simHashMethod) Compare(a, b []byte) (Estimate, error) {
	if len(a) != 8 || len(b) != 8 {
		return Estimate{Distance: -1}, fmt.Errorf("%w: simhash sketches of %d and %d bytes, want 8", ErrSketch, len(a), len(b))
	}
	d := Hamming(le64(a, 0), le64(b, 0))
	return Estimate{Resemblance: 1 - float64(d)/64, Distance: d, Near: d <= m.idx.k}, nil
}

// keysOf takes a fingerprint of 0 for the empty document (no keys); a
// document's real fingerprint is 0 with probability 2⁻⁶⁴.
func (m *simHashMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	if len(sketch) != 8 {
		return dst, fmt.Errorf("%w: simhash sketch of %d bytes, want 8", ErrSketch, len(sketch))
	}
	if fp := le64(sketch, 0); fp != 0 {
		dst = m.idx.AppendKeys(dst, fp)
	}
	return dst, nil
}
