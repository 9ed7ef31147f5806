package lsh

import (
	"testing"

	"github.com/dedupstream/dedupstream/lsh/vocab"
)

func TestIMatch(t *testing.T) {
	// N = 16: nidf = 1 − ln(df)/ln(16). "common" is in every document
	// (nidf 0), alpha, beta, gamma in 4 (0.5), delta in 2 (0.75), "rare" in
	// one (1).
	var b vocab.Builder
	b.Add([]byte("common alpha beta gamma rare"))
	for range 3 {
		b.Add([]byte("common alpha beta gamma"))
	}
	for range 2 {
		b.Add([]byte("common delta"))
	}
	for range 10 {
		b.Add([]byte("common"))
	}
	v := b.Vocabulary()
	m := NewIMatch(v, IMatchParams{Select: "idf", Low: 0.2, High: 0.8, MinWords: 3})
	sig := func(text string) (uint64, int, bool) {
		sel := m.Select(nil, AppendWords(nil, []byte(text)))
		s, ok := m.Signature(sel)
		return s, len(sel), ok
	}
	base, n, ok := sig("common alpha beta gamma")
	if !ok || n != 3 {
		t.Fatalf("base: %d words, ok %v; want alpha, beta, gamma", n, ok)
	}
	for _, same := range []string{"gamma beta alpha", "alpha alpha beta gamma common common", "rare alpha beta unseen gamma"} {
		if s, _, _ := sig(same); s != base {
			t.Errorf("%q: signature differs from the base's; only order, counts and out-of-band words changed", same)
		}
	}
	if s, _, _ := sig("alpha beta gamma delta"); s == base {
		t.Error("adding an in-band word did not change the signature")
	}
	if _, n, ok := sig("alpha beta common"); ok || n != 2 {
		t.Errorf("two in-band words: ok %v n %d, want no signature", ok, n)
	}
	cf := NewIMatch(v, IMatchParams{Select: "cf", Low: 2, High: 8, MinWords: 1})
	if n := len(cf.Select(nil, AppendWords(nil, []byte("common alpha delta rare")))); n != 2 {
		t.Errorf("cf in [2, 8]: %d words selected, want alpha (cf 4) and delta (cf 2)", n)
	}
}
