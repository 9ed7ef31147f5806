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

// keyReader is a Method that can derive its index keys from an encoded
// sketch: every Method NewMethod returns.
type keyReader interface {
	keysOf(dst []uint64, sketch []byte) ([]uint64, error)
}

// fingerprintReader is a Method whose sketch holds sampled shingle
// fingerprints: all but simhash and imatch.
type fingerprintReader interface {
	fingerprints(dst []uint64, sketch []byte) ([]uint64, error)
}

// KeysOf appends to dst the index keys that m's Sketch returned together with
// the encoded sketch, derived from the sketch alone: an offline pass looks a
// stored document up without its text. A simhash fingerprint of 0 is taken for
// the empty document (no keys); a document's real fingerprint is 0 with
// probability 2⁻⁶⁴. With sketch.verify the keys are the finder's.
func KeysOf(m Method, dst []uint64, sketch []byte) ([]uint64, error) {
	if r, ok := m.(keyReader); ok {
		return r.keysOf(dst, sketch)
	}
	return dst, fmt.Errorf("lsh: keys of a %T sketch: unknown method", m)
}

// lookupKeyer is a Method whose documents post more index keys than a
// lookup needs.
type lookupKeyer interface {
	lookupKeys(keys []uint64) []uint64
}

// LookupKeys returns the part of a document's index keys (all of them, as
// Sketch returned them) that finding its candidates needs: all of them but
// for sketch.contain, whose page looks up only the smallest few of its
// containment keys while posting all of them, so that a later page inside
// it finds it. It may return keys itself.
func LookupKeys(m Method, keys []uint64) []uint64 {
	if l, ok := m.(lookupKeyer); ok {
		return l.lookupKeys(keys)
	}
	return keys
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
	if r, ok := m.(fingerprintReader); ok {
		return r.fingerprints(dst, sketch)
	}
	return dst, fmt.Errorf("%w: %s", ErrNoFingerprints, m.Name())
}

// signatureFingerprints appends i<<32 | v for each non-empty position i of
// an encoded signature of n values.
func signatureFingerprints(dst []uint64, sketch []byte, n int) ([]uint64, error) {
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
