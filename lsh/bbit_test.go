package lsh

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCompactEstimates measures the 8-bit compact signature's error against
// the full signature's estimate, for minhash and oph from 32- and 16-bit
// minima, on text pairs at resemblances from unrelated to near-identical. The
// compact estimate differs by the chance agreements of the low byte alone: of
// the 128·(1−R) positions that differ, each agrees by chance with probability
// about 1/254, so a pair gains Poisson(λ ≤ 0.5) agreements and the correction
// takes λ off again: the mean |Δ| stays below E|X − λ|/128 < 0.006 at
// λ = 0.5 (measured: 0.0022–0.0027), and no pair may be off by more than six
// positions (6/128; measured worst 3.6/128 over the 1,600 pairs, other texts
// for each width). Verdicts (Near) may differ only on pairs within a position
// or two of the threshold: at most 3 of each 400 (measured: none).
func TestCompactEstimates(t *testing.T) {
	for _, name := range []string{MethodMinHash, MethodOPH} {
		for _, bits := range []int{32, 16} {
			cfg := Config{Method: name, Bits: bits}
			cfg.EnsureDefaults()
			m, err := NewMethod(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			c, ok := CompactOf(m)
			if !ok {
				t.Fatalf("%s, %d bits: no compact form", name, bits)
			}
			if c.Version() == m.Version() {
				t.Errorf("%s, %d bits: compact version %q is the method's", name, bits, c.Version())
			}
			if bits == 16 {
				if _, err := c.Compact(nil, make([]byte, 4*cfg.Params.NumPerm)); err == nil {
					t.Errorf("%s, 16 bits: Compact took a signature of 32-bit minima", name)
				}
			}
			r := rand.New(rand.NewPCG(3, uint64(bits))) // other texts for each width
			var sc Scratch
			var sum, worst float64
			pairs, verdicts := 0, 0
			for _, edit := range []float64{0, 0.01, 0.03, 0.05, 0.1, 0.2, 0.4, 1} {
				for range 50 {
					a := randomText(r, 3000)
					b := replaceWords(r, a, edit)
					sa, _ := m.Sketch(&sc, a, nil, nil)
					sb, _ := m.Sketch(&sc, b, nil, nil)
					full, err := m.Compare(sa, sb)
					if err != nil {
						t.Fatal(err)
					}
					ca, err1 := c.Compact(nil, sa)
					cb, err2 := c.Compact(nil, sb)
					if err1 != nil || err2 != nil || len(ca) != cfg.Params.NumPerm {
						t.Fatalf("%s: Compact: %v, %v, %d bytes from %d", name, err1, err2, len(ca), len(sa))
					}
					if again, err := c.Compact(nil, ca); err != nil || !bytes.Equal(again, ca) {
						t.Fatalf("%s: Compact of a compact signature changed it (%v)", name, err)
					}
					small, err := c.Compare(ca, cb)
					if err != nil {
						t.Fatal(err)
					}
					d := math.Abs(small.Resemblance - full.Resemblance)
					sum, worst, pairs = sum+d, max(worst, d), pairs+1
					if small.Near != full.Near {
						verdicts++
					}
				}
			}
			t.Logf("%s from %d bits: %d pairs, compact − full estimate: mean |Δ| %.5f, max %.4f; verdicts differing %d", name, bits, pairs, sum/float64(pairs), worst, verdicts)
			if sum/float64(pairs) > 0.006 || worst > 6.0/128+1e-9 || verdicts > 3 {
				t.Errorf("%s from %d bits: compact signature off by mean %.5f, max %.4f, %d verdicts: want < 0.006, ≤ 6/128, ≤ 3", name, bits, sum/float64(pairs), worst, verdicts)
			}
		}
	}
	if _, ok := CompactOf(mustMethod(t, MethodBottomK)); ok {
		t.Error("bottomk has a compact form; only signatures of minima do")
	}
}

// TestCompactEmpty checks that empty positions (a page without shingles)
// never agree, and that a minimum whose low byte is the empty marker does
// not read as empty.
func TestCompactEmpty(t *testing.T) {
	cfg := Config{Method: MethodMinHash, Bits: 16}
	cfg.EnsureDefaults()
	m, err := NewMethod(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := CompactOf(m)
	empty := bytes.Repeat([]byte{0xFF, 0xFF}, cfg.Params.NumPerm)  // every minimum empty
	marker := bytes.Repeat([]byte{0xFF, 0x12}, cfg.Params.NumPerm) // 0x12FF: low byte 0xFF
	ce, _ := c.Compact(nil, empty)
	cm, _ := c.Compact(nil, marker)
	if est, err := c.Compare(ce, ce); err != nil || est.Resemblance != 0 || est.Near {
		t.Errorf("two empty signatures: %+v, %v; want resemblance 0", est, err)
	}
	if est, err := c.Compare(cm, cm); err != nil || est.Resemblance != 1 {
		t.Errorf("a signature of minima ending in 0xFF against itself: %+v, %v; want 1", est, err)
	}
	if _, err := c.Compare(ce, empty); err == nil {
		t.Error("Compare took a 16-bit signature for a compact one")
	}
}

// replaceWords replaces each word of text with a random one with probability p.
func replaceWords(r *rand.Rand, text []byte, p float64) []byte {
	words := bytes.Fields(text)
	for i := range words {
		if r.Float64() < p {
			words[i] = randomText(r, 1)
		}
	}
	return bytes.Join(words, []byte(" "))
}

func mustMethod(t *testing.T, name string) Method {
	t.Helper()
	cfg := Config{Method: name}
	cfg.EnsureDefaults()
	m, err := NewMethod(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (c Config) defaulted() Config {
	c.EnsureDefaults()
	return c
}
