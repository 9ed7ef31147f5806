package clean

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRandomInvariants checks the output contract on short random mixes of
// the runes most likely to break normalisation: combining marks in and out
// of canonical order, Hangul jamo, characters whose case mapping or NFKC
// form is unusual, ignorables and invalid bytes, interleaved with inline and
// block tags for HTML. The seed is fixed, so a failure reproduces.
func TestRandomInvariants(t *testing.T) {
	alpha := []string{"a", "e", "i", "I", "o", "z", "Z", "1", " ", ".", "'", "-", "<", "=", ">",
		"\u0300", "\u0301", "\u0306", "\u0308", "\u0323", "\u0338", "\u0345", "\u034f", "\u0483", "\u0652", "\u093c",
		"ё", "Ё", "е", "Е", "и", "И", "й", "ж", "ᄀ", "ᅡ", "ᆨ", "가", "İ", "ı", "ß", "ẞ", "ﬁ", "①", "™", "K", "Ω", "Å",
		"ᴬ", "ǅ", "Σ", "ς", "\u00ad", "\u200d", "\u200b", "\xff", "\xd0", "\x00", "é", "ѐ", "Ѐ", "ϒ", "\u0344", "\u0f73",
		"\u0f71", "\u0f72", "\u0f80", "ﾞ", "ｶ", "\u3099", "か", "\u0cd5", "\u0cbf", "ೀ", "ǰ", "J", "\u030c", "ﷺ", "ŉ", "ΐ",
		"\u1e9b", "ẛ", "\u0307", "ſ", "ﬅ", "Ǆ", "ǈ", "\u1fbe", "ι", "ᾳ", "ᾼ", "\u0313", "\u0342",
	}
	html := []string{"<b>", "</b>", "<p>", "</p>", "&nbsp;", "&#x301;", "<i>", "<br>", "&amp;", "<script>", "</script>", "<nav>", "</nav>", "<title>", "</title>"}
	rng := rand.New(rand.NewPCG(1, 2))
	c := New(Options{})
	iters := 20000
	if testing.Short() {
		iters = 2000
	}
	for n := range iters {
		var b strings.Builder
		for range rng.IntN(6 + n%25) {
			if n%2 == 1 && rng.IntN(4) == 0 {
				b.WriteString(html[rng.IntN(len(html))])
			} else {
				b.WriteString(alpha[rng.IntN(len(alpha))])
			}
		}
		in := []byte(b.String())
		var out []byte
		var res Result
		if n%2 == 1 {
			out, res = c.HTML(nil, in)
		} else {
			out, res = c.Text(nil, in)
		}
		if err := invariantErr(string(out), res, DefaultMaxTokens); err != nil {
			t.Fatalf("input %q: %v", in, err)
		}
	}
}
