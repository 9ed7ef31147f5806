package lsh

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCompactEstimates measures the b-bit compact signature's error against
// the full signature's estimate, for minhash and oph, on text pairs at
// resemblances from unrelated to near-identical: the compact estimate may
// differ only by chance agreements of the low bits (expected 128·(1−R)·2^-16
// ≈ 0.002 positions a pair), so the mean difference must stay below 0.002
// and none may exceed two positions (2/128). It also checks that the verdicts
// (Near) agree on all but chance-borderline pairs.
func TestCompactEstimates(t *testing.T) {
	for _, name := range []string{MethodMinHash, MethodOPH} {
		cfg := Config{Method: name, Bits: 32} // 16-bit signatures are compact already
		cfg.EnsureDefaults()
		m, err := NewMethod(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := CompactOf(m)
		if !ok {
			t.Fatalf("%s: no compact form", name)
		}
		if def, _ := NewMethod(Config{Method: name, Bits: 16}.defaulted(), nil); def != nil {
			if _, ok := CompactOf(def); ok {
				t.Errorf("%s with 16 bits has a compact form; it is compact already", name)
			}
		}
		r := rand.New(rand.NewPCG(3, 4))
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
				if err1 != nil || err2 != nil || len(ca) != len(sa)/2 {
					t.Fatalf("%s: Compact: %v, %v, %d bytes from %d", name, err1, err2, len(ca), len(sa))
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
		t.Logf("%s: %d pairs, compact − full estimate: mean |Δ| %.5f, max %.4f; verdicts differing %d", name, pairs, sum/float64(pairs), worst, verdicts)
		if sum/float64(pairs) > 0.002 || worst > 2.0/128+1e-9 || verdicts > 1 {
			t.Errorf("%s: compact signature off by mean %.5f, max %.4f, %d verdicts: want < 0.002, ≤ 2/128, ≤ 1", name, sum/float64(pairs), worst, verdicts)
		}
	}
	if _, ok := CompactOf(mustMethod(t, MethodBottomK)); ok {
		t.Error("bottomk has a compact form; only signatures of minima do")
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
