package lsh

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// BottomK keeps the k smallest values of one random permutation of the
// fingerprints (Broder's "n minimal elements of one permutation"). The
// permutation is h(x) = mix64(x ⊕ key), a bijection, so distinct shingles
// keep distinct values. A BottomK is immutable and safe for concurrent use.
//
// Estimators, for sketches S_A, S_B of sets A, B (EstimateBottomK):
//
//   - Resemblance (Broder): of the k smallest values of S_A ∪ S_B, which are
//     the k smallest of A ∪ B, the fraction present in both sketches. Given
//     the union, those k are a uniform k-subset of A ∪ B, so the count in
//     A ∩ B is hypergeometric: the estimate is unbiased with standard error
//     at most sqrt(J(1−J)/k) (less by the finite-population factor).
//   - Containment: let τ be the smaller of the two sketches' largest values,
//     counting a sketch with fewer than k values (the whole set) as +∞.
//     Every value of A below τ is in S_A, and whether it is in B is known
//     from S_B, so A_τ = {a ∈ S_A : a < τ} is a random sample of A whose
//     intersection with B is known: |A∩B|/|A| ≈ |A_τ ∩ S_B| / |A_τ|, with
//     standard error about sqrt(c(1−c)/|A_τ|). Symmetrically for B in A.
//     The value τ itself is left out: it is where one sketch stopped, so it
//     is in that set by construction, and counting it biases the estimate
//     up by about (1−c)/|A_τ| (+0.004 at k = 32, c = 0.7 in simulation;
//     nothing measurable without it). When |A| ≪ |B|, τ is set by B's
//     sketch and A_τ holds only about k·|A|/|B| values, so the containment
//     of a small document in a much larger one is poorly estimated; it is
//     exact when both sketches hold their whole sets.
type BottomK struct {
	k   int
	key uint64
}

// NewBottomK returns a BottomK of size k with a permutation derived from
// seed. It panics unless 1 <= k <= MaxNumPerm.
func NewBottomK(k int, seed uint64) *BottomK {
	if k < 1 || k > MaxNumPerm {
		panic("lsh: NewBottomK: k out of range")
	}
	state := seed ^ 0x626f74746f6d6b21 // "bottomk!"
	return &BottomK{k: k, key: splitmix64(&state)}
}

// K returns the sketch size.
func (b *BottomK) K() int { return b.k }

// Sketch appends to dst the min(k, distinct) smallest hashes of the
// shingles, ascending, and returns the extended slice.
func (b *BottomK) Sketch(dst []uint64, shingles []uint64) []uint64 {
	return appendSmallest(dst, shingles, b.key, b.k)
}

// appendSmallest appends to dst the min(k, distinct) smallest of the hashes
// mix64(x ⊕ key) of the shingles, ascending, and returns the extended slice.
//
// It keeps only hashes below a cut expected to pass about 2k of them,
// then sorts those; if repeats leave fewer than k distinct values it
// widens the cut fourfold and tries again.
func appendSmallest(dst []uint64, shingles []uint64, key uint64, k int) []uint64 {
	n, base := len(shingles), len(dst)
	cut := uint64(math.MaxUint64)
	if n > 2*k {
		cut = math.MaxUint64 / uint64(n) * uint64(2*k)
	}
	for {
		dst = dst[:base]
		for _, x := range shingles {
			if h := mix64(x ^ key); h <= cut {
				dst = append(dst, h)
			}
		}
		got := dst[base:]
		slices.Sort(got)
		got = slices.Compact(got)
		if len(got) >= k || cut == math.MaxUint64 {
			return dst[:base+min(len(got), k)]
		}
		if cut > math.MaxUint64/4 {
			cut = math.MaxUint64
		} else {
			cut *= 4
		}
	}
}

// EstimateBottomK estimates resemblance and both containments from two
// bottom-k sketches of size k (ascending, as Sketch returns them). The
// returned Estimate has Containment set and Near false.
func EstimateBottomK(a, b []uint64, k int) Estimate {
	shared, union := 0, 0
	for i, j := 0, 0; union < k && (i < len(a) || j < len(b)); union++ {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			i++
		case i == len(a) || b[j] < a[i]:
			j++
		default:
			shared++
			i++
			j++
		}
	}
	na, nb := containmentSample(a, b, k)
	common := OverlapOf(a[:na], b[:nb]).Inter
	return Estimate{
		Resemblance: ratio(shared, union),
		AinB:        ratio(common, na),
		BinA:        ratio(common, nb),
		Containment: true,
		Distance:    -1,
	}
}

// containmentSample returns |A_τ| and |B_τ|: how many of the smallest values
// of each sketch lie below τ, the smaller largest value of a full sketch, or
// all of them when neither sketch is full.
func containmentSample(a, b []uint64, k int) (na, nb int) {
	tau, bounded := uint64(0), false
	if len(a) >= k {
		tau, bounded = a[len(a)-1], true
	}
	if len(b) >= k && (!bounded || b[len(b)-1] < tau) {
		tau, bounded = b[len(b)-1], true
	}
	if !bounded {
		return len(a), len(b)
	}
	na, _ = slices.BinarySearch(a, tau)
	nb, _ = slices.BinarySearch(b, tau)
	return na, nb
}

// bottomKMethod is the bottomk Method. Its keys are the L smallest values
// (mixed), matched as a set: a pair becomes a candidate when it shares one
// of them. If the first shingle of A ∪ B in permutation order that lies in
// both sets is among the L smallest of the union, it is among the L smallest
// of A and of B, so a pair of resemblance J becomes a candidate with
// probability at least about 1−(1−J)^L.
type bottomKMethod struct {
	b         *BottomK
	keys      int
	threshold float64
	sh        Shingling
	version   string
}

func newBottomKMethod(c Config, sh Shingling) *bottomKMethod {
	v := []byte(MethodBottomK)
	v = strconv.AppendInt(v, int64(c.Params.NumPerm), 10)
	v = append(v, "-l"...)
	v = strconv.AppendInt(v, int64(c.BottomK.Keys), 10)
	v = append(v, '-')
	v = appendSeed(sh.appendVersion(v), c.Params.Seed)
	return &bottomKMethod{b: NewBottomK(c.Params.NumPerm, c.Params.Seed), keys: c.BottomK.Keys,
		threshold: c.Params.Threshold, sh: sh, version: string(v)}
}

// appendSeed appends "-s<seed>" unless seed is the default 1.
func appendSeed(v []byte, seed uint64) []byte {
	if seed == 1 {
		return v
	}
	return strconv.AppendUint(append(v, "-s"...), seed, 10)
}

func (m *bottomKMethod) Name() string    { return MethodBottomK }
func (m *bottomKMethod) Version() string { return m.version }
func (m *bottomKMethod) KeyBands() int   { return 0 }

func (m *bottomKMethod) shingling() Shingling { return m.sh }

func (m *bottomKMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *bottomKMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.hashes = m.b.Sketch(sc.hashes[:0], sc.shingles)
	return appendSet(sketch, sc.hashes), m.appendKeys(keys, sc.hashes)
}

// appendKeys appends the keys of a bottom-k sketch: its smallest values,
// mixed.
func (m *bottomKMethod) appendKeys(keys, set []uint64) []uint64 {
	for _, h := range set[:min(m.keys, len(set))] {
		keys = append(keys, mix64(h))
	}
	return keys
}

func (m *bottomKMethod) Compare(a, b []byte) (Estimate, error) {
	na, err := setCount(a)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	nb, err := setCount(b)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	if na > m.b.k || nb > m.b.k || !ascending(a, na) || !ascending(b, nb) {
		return Estimate{Distance: -1}, fmt.Errorf("%w: bottom-%d sketches of %d and %d values", ErrSketch, m.b.k, na, nb)
	}
	var buf [2 * 128]uint64 // decoded on the stack for k <= 128, else allocated
	var sa, sb []uint64
	if na+nb <= len(buf) {
		sa, sb = buf[:na:na], buf[na:na+nb]
	} else {
		sa, sb = make([]uint64, na), make([]uint64, nb)
	}
	for i := range sa {
		sa[i] = le64(a, i)
	}
	for i := range sb {
		sb[i] = le64(b, i)
	}
	e := EstimateBottomK(sa, sb, m.b.k)
	e.Near = e.Resemblance >= m.threshold
	return e, nil
}

func (m *bottomKMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	set, err := setOf(sketch, m.b.k)
	return m.appendKeys(dst, set), err
}

func (m *bottomKMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	set, err := setOf(sketch, m.b.k)
	return append(dst, set...), err
}
