package lsh

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKeysOfMatchesSketch: for every method, the keys derived from a stored
// sketch are exactly the keys Sketch returned with it, for texts of every
// length, the empty text included.
func TestKeysOfMatchesSketch(t *testing.T) {
	v := testVocabulary(200)
	r := rand.New(rand.NewPCG(3, 5))
	var sc Scratch
	for _, m := range allMethods(t, v) {
		for _, n := range []int{0, 3, 40, 400, 3000} {
			text := zipfText(r, n)
			if n == 0 {
				text = nil
			}
			sketch, keys := m.Sketch(&sc, text, nil, nil)
			got, err := KeysOf(m, nil, sketch)
			if err != nil {
				t.Fatalf("%s, %d bytes: %v", m.Name(), n, err)
			}
			if !slices.Equal(got, keys) {
				t.Fatalf("%s, %d bytes: KeysOf %d keys %x, Sketch %d keys %x", m.Name(), n, len(got), got, len(keys), keys)
			}
		}
		if _, err := KeysOf(m, nil, []byte{1, 2, 3}); !errors.Is(err, ErrSketch) {
			t.Errorf("%s: 3-byte sketch: %v, want ErrSketch", m.Name(), err)
		}
	}
}

// TestFingerprintsCountCommon: the number of values two documents' lists
// share is the number of fingerprints their sketches agree in — for the
// signatures, Similarity times n.
func TestFingerprintsCountCommon(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	var sc Scratch
	a := zipfText(r, 3000)
	b := append(append([]byte(nil), a[:2400]...), zipfText(r, 600)...)
	for _, m := range allMethods(t, testVocabulary(50)) {
		if _, ok := m.(*verifyMethod); ok {
			continue // the verifier's fingerprints: TestVerifyRoundTrip
		}
		sa, _ := m.Sketch(&sc, a, nil, nil)
		if cm, ok := m.(*containMethod); ok { // the inner method's, as without the sample
			inner, _, err := splitTwo(sa)
			fa, err2 := Fingerprints(cm, nil, sa)
			fi, _ := Fingerprints(cm.inner, nil, inner)
			if err != nil || err2 != nil || len(fa) == 0 || !slices.Equal(fa, fi) {
				t.Errorf("%s: fingerprints %d values, the inner method's %d (%v, %v)", m.Version(), len(fa), len(fi), err, err2)
			}
			continue
		}
		sb, _ := m.Sketch(&sc, b, nil, nil)
		fa, err := Fingerprints(m, nil, sa)
		if m.Name() == MethodSimHash || m.Name() == MethodIMatch {
			if !errors.Is(err, ErrNoFingerprints) {
				t.Errorf("%s: %v, want ErrNoFingerprints", m.Name(), err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := Fingerprints(m, nil, sb)
		common := OverlapOf(SortedSet(slices.Clone(fa)), SortedSet(slices.Clone(fb))).Inter
		switch m.Name() {
		case MethodMinHash, MethodOPH, MethodSuperShingle:
			ga, gb := decodeSig(t, m, sa), decodeSig(t, m, sb)
			if want := int(Similarity(ga, gb)*float64(len(ga)) + 0.5); common != want || len(fa) != len(ga) {
				t.Errorf("%s: %d common of %d, want %d of %d", m.Name(), common, len(fa), want, len(ga))
			}
		default:
			o, err := overlapBytes(sa, sb)
			if err != nil || common != o.Inter {
				t.Errorf("%s: %d common, want %d (%v)", m.Name(), common, o.Inter, err)
			}
		}
		if common == 0 || common == len(fa) {
			t.Errorf("%s: %d common of %d: the test pair should share some but not all", m.Name(), common, len(fa))
		}
	}
}

// decodeSig decodes a signature sketch of m with its codec (minhash and oph:
// 16 or 32 bits a minimum) or as 32-bit minima (supershingle).
func decodeSig(t *testing.T, m Method, sketch []byte) Signature {
	t.Helper()
	var sig Signature
	var err error
	switch m := m.(type) {
	case *minHashMethod:
		sig, err = m.codec.decode(sketch)
	case *ophMethod:
		sig, err = m.codec.decode(sketch)
	default:
		sig, err = DecodeSignature(nil, sketch)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sig
}
