package lsh

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// minHashMethod is the MinHash path the pipeline has always used, behind
// the Method interface: Sketcher.Signature, encoded by
// Signature.AppendBinary, keyed by Sketcher.BandKeys.
type minHashMethod struct {
	s       *Sketcher
	sh      Shingling
	codec   sigCodec
	version string
}

func newMinHashMethod(p Params, sh Shingling, bits int) *minHashMethod {
	c := sigCodec{n: p.NumPerm, bits: bits}
	return &minHashMethod{s: NewSketcher(p), sh: sh, codec: c, version: bandedVersion(MethodMinHash, p, sh) + c.versionSuffix()}
}

// bandedVersion names a banded signature method. Params.Version is the
// minhash name of word shingles with offset 1, so a minhash state written
// before Config existed keeps its version.
func bandedVersion(name string, p Params, sh Shingling) string {
	b := make([]byte, 0, 48)
	b = append(b, name...)
	b = strconv.AppendInt(b, int64(p.NumPerm), 10)
	b = append(b, "-b"...)
	b = strconv.AppendInt(b, int64(p.Bands), 10)
	b = append(b, 'r')
	b = strconv.AppendInt(b, int64(p.Rows), 10)
	b = append(b, '-')
	return string(appendSeed(sh.appendVersion(b), p.Seed))
}

func (m *minHashMethod) Name() string    { return MethodMinHash }
func (m *minHashMethod) Version() string { return m.version }
func (m *minHashMethod) KeyBands() int   { return m.s.p.Bands }

func (m *minHashMethod) shingling() Shingling { return m.sh }

func (m *minHashMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *minHashMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.sig = m.s.Signature(sc.sig, sc.shingles)
	m.codec.narrow(sc.sig)
	if len(sc.shingles) > 0 {
		keys = m.s.BandKeys(keys, sc.sig)
	}
	return m.codec.append(sketch, sc.sig), keys
}

func (m *minHashMethod) Compare(a, b []byte) (Estimate, error) {
	return m.codec.compare(a, b, m.s.p.Threshold)
}

// compareSignatures is Similarity on two encoded signatures of n values.
func compareSignatures(a, b []byte, n int, threshold float64) (Estimate, error) {
	if len(a) != 4*n || len(b) != 4*n {
		return Estimate{Distance: -1}, fmt.Errorf("%w: signatures of %d and %d bytes, want %d", ErrSketch, len(a), len(b), 4*n)
	}
	sim := float64(agreeing(a, b)) / float64(n)
	return Estimate{Resemblance: sim, Distance: -1, Near: sim >= threshold}, nil
}

// agreeing counts the positions where two encoded signatures of equal
// length hold the same value and it is not empty: Similarity's numerator.
func agreeing(a, b []byte) int {
	same := 0
	for i := 0; i < len(a); i += 4 {
		v := binary.LittleEndian.Uint32(a[i:])
		if v == binary.LittleEndian.Uint32(b[i:]) && v != math.MaxUint32 {
			same++
		}
	}
	return same
}

func (m *minHashMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	sig, err := m.codec.decode(sketch)
	if err != nil || empty(sig) {
		return dst, err
	}
	return m.s.BandKeys(dst, sig), nil
}

func (m *minHashMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	return m.codec.fingerprints(dst, sketch)
}
