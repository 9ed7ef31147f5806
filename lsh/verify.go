package lsh

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// VerifyNone is the VerifyConfig.Method that turns verification off.
const VerifyNone = "none"

// VerifyMethodNames returns the methods that may verify candidates: those
// whose Compare estimates the Jaccard resemblance of the shingle sets.
func VerifyMethodNames() []string {
	return []string{MethodMinHash, MethodOPH, MethodBottomK, MethodModM, MethodFull}
}

// VerifyConfig configures a second sketch, stored with each document, that
// must confirm what the first (Config.Method) finds. The zero value means no
// verification.
type VerifyConfig struct {
	// Method is "none" or one of VerifyMethodNames; "" → none.
	Method string `yaml:"method"`
	// Threshold is the resemblance the verifier must also estimate for a
	// near-duplicate; 0 → sketch.threshold. Like sketch.threshold it changes
	// verdicts, not sketches.
	Threshold float64 `yaml:"threshold"`
	// NumPerm is the verifier's num_perm (k for bottomk); 0 → sketch.num_perm.
	NumPerm int `yaml:"num_perm"`
}

func (v *VerifyConfig) ensureDefaults() {
	if v.Method == "" {
		v.Method = VerifyNone
	}
}

func (v VerifyConfig) validate() error {
	if v.Method != VerifyNone && !slices.Contains(VerifyMethodNames(), v.Method) {
		return fmt.Errorf("sketch.verify.method: must be %s or one of %v, got %q", VerifyNone, VerifyMethodNames(), v.Method)
	}
	if !(v.Threshold >= 0 && v.Threshold < 1) {
		return fmt.Errorf("sketch.verify.threshold: must be in [0, 1) (0: sketch.threshold), got %g", v.Threshold)
	}
	if v.NumPerm < 0 || v.NumPerm > MaxNumPerm {
		return fmt.Errorf("sketch.verify.num_perm: must be in [0, %d] (0: sketch.num_perm), got %d", MaxNumPerm, v.NumPerm)
	}
	return nil
}

// verifierConfig returns the Config of c's verifier: c's shingling, seed and
// containment with the verifier's method, num_perm and threshold, and that
// method's own defaults for the rest. Its keys are never indexed, so they are
// fixed (one band; one bottom-k key) rather than derived from the threshold,
// which would put the threshold into the version.
func (c Config) verifierConfig() Config {
	v := Config{Method: c.Verify.Method, Params: c.Params, ShingleOffset: c.ShingleOffset,
		CharNgrams: c.CharNgrams, StopWords: c.StopWords, Stem: c.Stem, Containment: c.Containment,
		Full: c.Full, ModM: c.ModM, BottomK: BottomKParams{Keys: 1}}
	if c.Verify.NumPerm > 0 {
		v.Params.NumPerm = c.Verify.NumPerm
	}
	v.Params.Bands, v.Params.Rows = 1, v.Params.NumPerm
	if c.Verify.Threshold > 0 {
		v.Params.Threshold = c.Verify.Threshold
	}
	v.EnsureDefaults()
	return v
}

// verifyMethod is a Method whose candidates, found by one Method's keys,
// must also be near by a second, stricter one. Its sketch holds both:
// the finder's length as 4 bytes little-endian, the finder's sketch, then
// the verifier's.
type verifyMethod struct {
	finder, verifier Method
	// reuse is the verifier when it shingles as the finder does: it then
	// sketches the shingles the finder left in the Scratch.
	reuse   shingleMethod
	version string
}

func newVerifyMethod(finder, verifier Method) *verifyMethod {
	m := &verifyMethod{finder: finder, verifier: verifier,
		version: finder.Version() + "+verify-" + verifier.Version()}
	f, ok := finder.(shingleMethod)
	v, vok := verifier.(shingleMethod)
	if ok && vok && f.shingling() == v.shingling() {
		m.reuse = v
	}
	return m
}

// Name is the finder's: the method whose keys the index holds.
func (m *verifyMethod) Name() string    { return m.finder.Name() }
func (m *verifyMethod) Version() string { return m.version }
func (m *verifyMethod) KeyBands() int   { return m.finder.KeyBands() }

// Sketch appends both sketches and the finder's keys, shingling the text
// once when the two shingle alike. Scratch.KeysCut reports the finder's
// cut: the verifier's keys are not indexed.
func (m *verifyMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	at := len(sketch)
	sketch = append(sketch, 0, 0, 0, 0)
	sketch, keys = m.finder.Sketch(sc, text, sketch, keys)
	binary.LittleEndian.PutUint32(sketch[at:], uint32(len(sketch)-at-4))
	n, cut := len(keys), sc.keysCut
	if m.reuse != nil {
		sketch, keys = m.reuse.sketchShingles(sc, sketch, keys)
	} else {
		sketch, keys = m.verifier.Sketch(sc, text, sketch, keys)
	}
	sc.keysCut = cut
	return sketch, keys[:n]
}

// Compare is Near when the finder calls the pair near and the verifier's
// resemblance reaches its threshold (the verifier's own Near). The
// resemblance reported is the verifier's, the stricter one, with the
// finder's Distance. Verification never adds a verdict: containment is
// reported only when the finder estimates it, as the smaller of the two
// estimates when the verifier estimates it too, so that both must reach
// sketch.containment.
func (m *verifyMethod) Compare(a, b []byte) (Estimate, error) {
	fa, va, err := splitTwo(a)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	fb, vb, err := splitTwo(b)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	ef, err := m.finder.Compare(fa, fb)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	ev, err := m.verifier.Compare(va, vb)
	if err != nil {
		return Estimate{Distance: -1}, err
	}
	e := Estimate{Resemblance: ev.Resemblance, AinB: ef.AinB, BinA: ef.BinA, Containment: ef.Containment,
		Distance: ef.Distance, Near: ef.Near && ev.Near}
	if ef.Containment && ev.Containment {
		e.AinB, e.BinA = min(ef.AinB, ev.AinB), min(ef.BinA, ev.BinA)
	}
	return e, nil
}

// splitTwo returns the two parts of a sketch that holds a first sketch's
// length as 4 bytes little-endian, the first sketch and the second: the
// finder's and the verifier's (sketch.verify), or a method's and its
// containment sample's (sketch.contain).
func splitTwo(sk []byte) (first, second []byte, err error) {
	if len(sk) < 4 {
		return nil, nil, fmt.Errorf("%w: two-part sketch of %d bytes, want >= 4", ErrSketch, len(sk))
	}
	n := binary.LittleEndian.Uint32(sk)
	if uint64(n) > uint64(len(sk)-4) {
		return nil, nil, fmt.Errorf("%w: two-part sketch of %d bytes holds a first part of %d", ErrSketch, len(sk), n)
	}
	return sk[4 : 4+n], sk[4+n:], nil
}

// keysOf returns the finder's keys.
func (m *verifyMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	f, _, err := splitTwo(sketch)
	if err != nil {
		return dst, err
	}
	return KeysOf(m.finder, dst, f)
}

// fingerprints returns the verifier's fingerprints, the larger or exact
// sample.
func (m *verifyMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	_, v, err := splitTwo(sketch)
	if err != nil {
		return dst, err
	}
	return Fingerprints(m.verifier, dst, v)
}
