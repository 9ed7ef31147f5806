package lsh

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrNoFingerprints is returned by Fingerprints for the methods whose sketch
// holds no sample of shingle fingerprints (simhash, imatch).
var ErrNoFingerprints = errors.New("lsh: sketch holds no shingle fingerprints")

// KeysOf appends to dst the index keys that m's Sketch returned together with
// the encoded sketch, derived from the sketch alone: an offline pass looks a
// stored document up without its text. A simhash fingerprint of 0 is taken for
// the empty document (no keys); a document's real fingerprint is 0 with
// probability 2⁻⁶⁴. With sketch.verify the keys are the finder's.
func KeysOf(m Method, dst []uint64, sketch []byte) ([]uint64, error) {
	switch m := m.(type) {
	case *verifyMethod:
		f, _, err := splitVerify(sketch)
		if err != nil {
			return dst, err
		}
		return KeysOf(m.finder, dst, f)
	case *minHashMethod:
		sig, err := signatureOf(sketch, m.s.p.NumPerm)
		if err != nil || empty(sig) {
			return dst, err
		}
		return m.s.BandKeys(dst, sig), nil
	case *ophMethod:
		sig, err := signatureOf(sketch, m.p.NumPerm)
		if err != nil || empty(sig) {
			return dst, err
		}
		return appendBandKeys(dst, sig, m.p.Bands, m.p.Rows), nil
	case *superShingleMethod:
		sig, err := signatureOf(sketch, m.s.p.NumPerm)
		if err != nil || empty(sig) {
			return dst, err
		}
		return MegaShingles(dst, SuperShingles(nil, sig, m.s.p.Rows)), nil
	case *bottomKMethod:
		set, err := setOf(sketch, m.b.k)
		for _, h := range set[:min(m.keys, len(set))] {
			dst = append(dst, mix64(h))
		}
		return dst, err
	case *modmMethod:
		set, err := setOf(sketch, math.MaxInt)
		return append(dst, set...), err
	case *fullMethod:
		set, err := setOf(sketch, math.MaxInt)
		return append(dst, set[:min(m.maxKeys, len(set))]...), err
	case *simHashMethod:
		if len(sketch) != 8 {
			return dst, fmt.Errorf("%w: simhash sketch of %d bytes, want 8", ErrSketch, len(sketch))
		}
		if fp := le64(sketch, 0); fp != 0 {
			dst = m.idx.AppendKeys(dst, fp)
		}
		return dst, nil
	case *imatchMethod:
		switch len(sketch) {
		case 0:
			return dst, nil
		case 8:
			return append(dst, le64(sketch, 0)), nil
		}
		return dst, fmt.Errorf("%w: imatch sketch of %d bytes, want 0 or 8", ErrSketch, len(sketch))
	}
	return dst, fmt.Errorf("lsh: keys of a %T sketch: unknown method", m)
}

// Fingerprints appends to dst the sampled shingle fingerprints an encoded
// sketch of m holds, distinct: for a signature of n permutations (minhash,
// oph, supershingle) each position i with its minimum v as i<<32 | v, empty
// positions left out — the papers' "minimal elements of n permutations"; for
// bottomk, modm and full the stored fingerprints. Two documents' lists share a
// value exactly when their sketches agree in that fingerprint, so the number of
// values they share is their number of common fingerprints. It returns
// ErrNoFingerprints for simhash and imatch. With sketch.verify they are the
// verifier's, the larger or exact sample.
func Fingerprints(m Method, dst []uint64, sketch []byte) ([]uint64, error) {
	n := 0
	switch m := m.(type) {
	case *verifyMethod:
		_, v, err := splitVerify(sketch)
		if err != nil {
			return dst, err
		}
		return Fingerprints(m.verifier, dst, v)
	case *minHashMethod:
		n = m.s.p.NumPerm
	case *ophMethod:
		n = m.p.NumPerm
	case *superShingleMethod:
		n = m.s.p.NumPerm
	case *bottomKMethod:
		set, err := setOf(sketch, m.b.k)
		return append(dst, set...), err
	case *modmMethod, *fullMethod:
		set, err := setOf(sketch, math.MaxInt)
		return append(dst, set...), err
	default:
		return dst, fmt.Errorf("%w: %s", ErrNoFingerprints, m.Name())
	}
	if len(sketch) != 4*n {
		return dst, fmt.Errorf("%w: signature of %d bytes, want %d", ErrSketch, len(sketch), 4*n)
	}
	for i := range n {
		if v := binary.LittleEndian.Uint32(sketch[4*i:]); v != math.MaxUint32 {
			dst = append(dst, uint64(i)<<32|uint64(v))
		}
	}
	return dst, nil
}

// signatureOf decodes a signature of n values.
func signatureOf(sketch []byte, n int) (Signature, error) {
	if len(sketch) != 4*n {
		return nil, fmt.Errorf("%w: signature of %d bytes, want %d", ErrSketch, len(sketch), 4*n)
	}
	return DecodeSignature(nil, sketch)
}

// empty reports whether sig is the signature of no shingles.
func empty(sig Signature) bool {
	for _, v := range sig {
		if v != math.MaxUint32 {
			return false
		}
	}
	return true
}

// setOf decodes a strictly ascending encoded set of at most k values.
func setOf(sketch []byte, k int) ([]uint64, error) {
	n, err := setCount(sketch)
	if err != nil {
		return nil, err
	}
	if n > k || !ascending(sketch, n) {
		return nil, fmt.Errorf("%w: set of %d values, not ascending or more than %d", ErrSketch, n, k)
	}
	set := make([]uint64, n)
	for i := range set {
		set[i] = le64(sketch, i)
	}
	return set, nil
}
