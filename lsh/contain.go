package lsh

import (
	"encoding/binary"
	"strconv"
)

// containMethod gives a method that estimates resemblance only (minhash,
// oph) the contained verdict (Config.Contain): beside the method's own
// sketch each page stores a floored mod-m sample of its shingles (ModM with
// m = 25 and a floor of 128), whose keys join the method's. Near
// is the method's own verdict, on its own estimate; the containments are the
// sample's (NaN when withheld, see ModM).
//
// Why a second sample. A fixed-size sketch of a large page says little
// about a small one inside it: of 128 MinHash minima of a page 3 times the
// size of the small one, about a third are minima of the small one too, and
// which ones is not known. A sample chosen by the hash value alone (≡ 0
// mod m) holds, for a small page inside a large one, all the small page's
// sampled shingles, and finds the large page by them as keys.
//
// Its sketch is the method's sketch's length as 4 bytes little-endian, the
// method's sketch, then the sample as modm stores it. Its keys are a set
// (KeyBands 0): the method's band keys already mix in their band.
type containMethod struct {
	inner   shingleMethod
	sample  *modmMethod
	version string
}

// The containment sample's parameters: values ≡ 0 (mod containM), a floor
// of containMin, and the containKeys smallest values of a short page as
// keys. Changing any changes the sketches or keys: the version names them.
const (
	containM    = 25
	containMin  = 128
	containKeys = 4
	// containLookup is how many of its keys ≡ 0 (mod containM) a page looks
	// up (the smallest; it posts them all). A page that is a share C of
	// another has each sampled value in the other's with probability about
	// C, so at C ≥ 0.9 four of them all miss with probability ~10⁻⁴, while
	// the lookups and the candidates they bring stay few on long pages.
	containLookup = 4
)

// newContainMethod wraps inner, made from c, with a containment sample of
// the same shingles and seed.
func newContainMethod(inner shingleMethod, c Config) *containMethod {
	c.ModM = ModMParams{M: containM, Min: containMin}
	sample := newModMMethod(c, inner.shingling())
	sample.smallest = containKeys
	v := inner.Version() + "+contain-modm" + string(sample.appendParams(nil)) + "-l" + strconv.Itoa(containKeys)
	return &containMethod{inner: inner, sample: sample, version: v}
}

// Name is the inner method's: Contain adds a verdict, not a method.
func (m *containMethod) Name() string    { return m.inner.Name() }
func (m *containMethod) Version() string { return m.version }
func (m *containMethod) KeyBands() int   { return 0 }

func (m *containMethod) shingling() Shingling { return m.inner.shingling() }

func (m *containMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *containMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	at := len(sketch)
	sketch = append(sketch, 0, 0, 0, 0)
	sketch, keys = m.inner.sketchShingles(sc, sketch, keys)
	binary.LittleEndian.PutUint32(sketch[at:], uint32(len(sketch)-at-4))
	return m.sample.sketchShingles(sc, sketch, keys)
}

// Compare is the inner method's estimate with the sample's containments.
func (m *containMethod) Compare(a, b []byte) (Estimate, error) {
	ia, sa, err := splitTwo(a)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	ib, sb, err := splitTwo(b)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	e, err := m.inner.Compare(ia, ib)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	if err := checkSets(sa, sb); err != nil {
		return Estimate{Distance: -1}, err
	}
	c := m.sample.s.estimate(sa, sb)
	e.AinB, e.BinA, e.Containment = c.AinB, c.BinA, true
	return e, nil
}

// lookupKeys is the inner method's keys (its bands come first in keys) and,
// of the sample's (which follow, ascending), the containLookup smallest ≡ 0
// (mod containM) — what a larger page holding this one posted too — and a
// short page's floor keys, which find other short pages.
func (m *containMethod) lookupKeys(keys []uint64) []uint64 {
	n := m.inner.KeyBands()
	if n == 0 || len(keys) <= n+containLookup {
		return keys
	}
	out := append(make([]uint64, 0, n+2*containLookup), keys[:n]...)
	mod := 0
	for _, k := range keys[n:] {
		switch {
		case !m.sample.s.div.divides(k):
			out = append(out, k) // a floor key: at most containKeys of them
		case mod < containLookup:
			out, mod = append(out, k), mod+1
		}
	}
	return out
}

// keysOf returns the inner method's keys and the sample's.
func (m *containMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	in, sample, err := splitTwo(sketch)
	if err != nil {
		return dst, err
	}
	if dst, err = KeysOf(m.inner, dst, in); err != nil {
		return dst, err
	}
	return m.sample.keysOf(dst, sample)
}

// fingerprints returns the inner method's, as without Contain.
func (m *containMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	in, _, err := splitTwo(sketch)
	if err != nil {
		return dst, err
	}
	return Fingerprints(m.inner, dst, in)
}
