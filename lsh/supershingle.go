package lsh

import (
	"fmt"
	"math"
	"strconv"
)

// SuperShingles appends the super-shingles of a MinHash signature to dst
// (Fetterly, Manasse and Najork 2003): the signature is cut into
// len(sig)/rows runs of rows consecutive minima and each run is hashed, with
// its index, into one value — the same hash as an LSH band key. With the
// paper's 84 minima and rows = 14 there are 6 super-shingles; two documents
// of resemblance J agree on a given one with probability J^14.
func SuperShingles(dst []uint64, sig Signature, rows int) []uint64 {
	return appendBandKeys(dst, sig, len(sig)/rows, rows)
}

// MegaShingles appends one mega-shingle per pair of super-shingles (15 for
// 6), in the order (0,1), (0,2), …, (1,2), …: a hash of the pair's index
// and both values. Two documents share the mega-shingle of pair (i, j)
// exactly when they agree on super-shingles i and j (up to 64-bit
// collisions), so sharing any mega-shingle means at least 2 of the
// super-shingles agree, which at 6×14 happens with probability
// 1 − (1−p)^6 − 6p(1−p)^5, p = J^14: 0.42 at J = 0.9, 0.5 at J ≈ 0.91,
// 0.88 at J = 0.95 and 0.9 at J ≈ 0.953.
// Exact-key lookup of the mega-shingles thus finds the near-duplicates
// without any banding.
func MegaShingles(dst []uint64, supers []uint64) []uint64 {
	pair := uint64(0)
	for i, si := range supers {
		for _, sj := range supers[i+1:] {
			dst = append(dst, mix64(mix64(si+pair*0x9e3779b97f4a7c15+0x632be59bd9b4e019)^sj))
			pair++
		}
	}
	return dst
}

// superShingleMethod is the supershingle Method. Its sketch is the MinHash
// signature of Bands×Rows minima, so Compare can count agreeing minima
// (a resemblance estimate, as for minhash) and agreeing super-shingles (the
// verdict); its keys are the mega-shingles.
type superShingleMethod struct {
	s       *Sketcher
	sh      Shingling
	version string
}

func newSuperShingleMethod(p Params, sh Shingling) *superShingleMethod {
	v := strconv.AppendInt([]byte(MethodSuperShingle), int64(p.Bands), 10)
	v = strconv.AppendInt(append(v, 'x'), int64(p.Rows), 10)
	v = appendSeed(sh.appendVersion(append(v, '-')), p.Seed)
	return &superShingleMethod{s: NewSketcher(p), sh: sh, version: string(v)}
}

func (m *superShingleMethod) Name() string    { return MethodSuperShingle }
func (m *superShingleMethod) Version() string { return m.version }
func (m *superShingleMethod) KeyBands() int   { return m.s.p.Bands * (m.s.p.Bands - 1) / 2 }

func (m *superShingleMethod) shingling() Shingling { return m.sh }

func (m *superShingleMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *superShingleMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.sig = m.s.Signature(sc.sig, sc.shingles)
	if len(sc.shingles) > 0 {
		sc.hashes = SuperShingles(sc.hashes[:0], sc.sig, m.s.p.Rows)
		keys = MegaShingles(keys, sc.hashes)
	}
	return sc.sig.AppendBinary(sketch), keys
}

// Compare estimates resemblance from the agreeing minima and calls the pair
// near when at least two super-shingles agree in all their minima.
func (m *superShingleMethod) Compare(a, b []byte) (Estimate, error) {
	p := m.s.p
	if len(a) != 4*p.NumPerm || len(b) != 4*p.NumPerm {
		return Estimate{Distance: -1}, fmt.Errorf("%w: signatures of %d and %d bytes, want %d",
			ErrSketch, len(a), len(b), 4*p.NumPerm)
	}
	same, supers := 0, 0
	for band := range p.Bands {
		agree := 0
		for i := band * p.Rows; i < (band+1)*p.Rows; i++ {
			if v := le32(a, i); v == le32(b, i) && v != math.MaxUint32 {
				agree++
			}
		}
		same += agree
		if agree == p.Rows {
			supers++
		}
	}
	sim := float64(same) / float64(p.NumPerm)
	return Estimate{Resemblance: sim, Distance: -1, Near: supers >= 2}, nil
}

func (m *superShingleMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	sig, err := signatureOf(sketch, m.s.p.NumPerm)
	if err != nil || empty(sig) {
		return dst, err
	}
	return MegaShingles(dst, SuperShingles(nil, sig, m.s.p.Rows)), nil
}

func (m *superShingleMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	return signatureFingerprints(dst, sketch, m.s.p.NumPerm)
}

func le32(b []byte, i int) uint32 {
	return uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
}
