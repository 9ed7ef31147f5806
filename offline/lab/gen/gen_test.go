package gen

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func pages(o Options, n int) []Page {
	g := New(o)
	out := make([]Page, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

func TestDeterministic(t *testing.T) {
	a, b := pages(Options{Seed: 7}, 300), pages(Options{Seed: 7}, 300)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different pages")
	}
	c := pages(Options{Seed: 8}, 300)
	same := 0
	for i := range a {
		if a[i].HTML == c[i].HTML {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 7 and 8 gave %d identical pages", same)
	}
}

func TestKindsAndOrigins(t *testing.T) {
	f := func(o Options, n int, wantCopy float64) {
		t.Helper()
		kinds := map[Kind]int{}
		originals := map[string]string{} // id → host
		ids := map[string]bool{}
		for _, p := range pages(o, n) {
			kinds[p.Kind]++
			if ids[p.ID] {
				t.Fatalf("duplicate id %s", p.ID)
			}
			ids[p.ID] = true
			if p.Kind == Original {
				if p.Origin != p.ID {
					t.Fatalf("original %s has origin %s", p.ID, p.Origin)
				}
				originals[p.ID] = host(p.URL)
			} else if originals[p.Origin] == "" {
				t.Fatalf("%s copy %s: origin %s is not an earlier original", p.Kind, p.ID, p.Origin)
			} else if p.Kind == Mirror && host(p.URL) == originals[p.Origin] {
				t.Fatalf("mirror %s is on its original's site %s", p.ID, p.URL)
			}
		}
		// Binomial: 4 standard deviations of the copy share is ≤ 0.019 at n = 10000.
		tol := 2 / math.Sqrt(float64(n))
		if got := 1 - float64(kinds[Original])/float64(n); math.Abs(got-wantCopy) > tol {
			t.Errorf("CopyRate %v: copy share %.3f, want %.3f", o.CopyRate, got, wantCopy)
		}
		ks := o.WithDefaults().Kinds
		for _, k := range ks {
			if want := wantCopy / float64(len(ks)); math.Abs(float64(kinds[k])/float64(n)-want) > tol*0.75 {
				t.Errorf("CopyRate %v: %s share %.3f, want %.3f", o.CopyRate, k, float64(kinds[k])/float64(n), want)
			}
		}
		if len(kinds) > len(ks)+1 {
			t.Errorf("kinds %v made, only %v asked for", kinds, ks)
		}
	}
	f(Options{Seed: 1}, 10000, 0.3)
	f(Options{Seed: 4, Kinds: AllKinds()}, 5000, 0.3)
	f(Options{Seed: 4, Kinds: []Kind{Quoted, Plaintext}, CopyRate: 0.5}, 2000, 0.5)
	f(Options{Seed: 2, CopyRate: 0.6}, 3000, 0.6)
	f(Options{Seed: 3, CopyRate: -1}, 500, 0)
}

func host(url string) string {
	h, _, _ := strings.Cut(strings.TrimPrefix(url, "https://"), "/")
	return h
}

func TestRussian(t *testing.T) {
	f := func(o Options, want float64) {
		t.Helper()
		ru, all := 0, 0
		for _, p := range pages(o, 1000) {
			if p.Kind != Original {
				continue
			}
			all++
			text := strings.Join(articleText(p.HTML), " ")
			cyr := strings.IndexFunc(text, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) >= 0
			if cyr != strings.Contains(p.HTML, `lang="ru"`) {
				t.Fatalf("%s: Cyrillic text %v but lang attribute disagrees", p.ID, cyr)
			}
			if cyr {
				ru++
			}
		}
		if got := float64(ru) / float64(all); math.Abs(got-want) > 0.05 {
			t.Errorf("Russian %v: %.3f of originals are Russian, want %.2f", o.Russian, got, want)
		}
	}
	f(Options{Seed: 1}, 0.2)
	f(Options{Seed: 1, Russian: 1}, 1)
	f(Options{Seed: 1, Russian: -1}, 0)
}

func TestWordLists(t *testing.T) {
	f := func(name, list string, minWords int, letters func(rune) bool, must ...string) {
		t.Helper()
		ws := strings.Fields(list)
		seen := map[string]bool{}
		for _, w := range ws {
			if seen[w] || strings.IndexFunc(w, func(r rune) bool { return !letters(r) }) >= 0 {
				t.Errorf("%s: duplicate or odd word %q", name, w)
			}
			seen[w] = true
		}
		if len(ws) < minWords {
			t.Errorf("%s: %d words, want ≥ %d", name, len(ws), minWords)
		}
		for _, sub := range must {
			if !strings.Contains(list, sub) {
				t.Errorf("%s: no word with %q", name, sub)
			}
		}
	}
	f("english", englishWords, 300, func(r rune) bool { return 'a' <= r && r <= 'z' })
	f("russian", russianWords, 200, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }, "ё", "й")
}

func TestOptions(t *testing.T) {
	d := Options{}.WithDefaults()
	if d.CopyRate != 0.3 || d.EditRate != 0.03 || d.Russian != 0.2 || d.Paragraphs != [2]int{4, 10} {
		t.Errorf("defaults %+v", d)
	}
	if n := (Options{CopyRate: -1, EditRate: -0.5}).WithDefaults(); n.CopyRate != 0 || n.EditRate != 0 {
		t.Errorf("negative rates: %+v", n)
	}
	for _, bad := range []Options{{CopyRate: 1.5}, {EditRate: math.NaN()}, {Russian: 2},
		{Paragraphs: [2]int{0, 3}}, {Paragraphs: [2]int{5, 4}}, {Paragraphs: [2]int{1, 5000}}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("New with invalid options did not panic")
		}
	}()
	New(Options{CopyRate: 2})
}

func TestParagraphCounts(t *testing.T) {
	for _, p := range pages(Options{Seed: 5, CopyRate: -1, Paragraphs: [2]int{2, 3}}, 200) {
		paras := articleText(p.HTML)[1:]
		if len(paras) < 2 || len(paras) > 3 {
			t.Fatalf("%s: %d paragraphs, want 2..3", p.ID, len(paras))
		}
		for _, para := range paras {
			if n := len(strings.Fields(para)); n < 3*8 || n > 7*20 {
				t.Fatalf("%s: paragraph of %d words", p.ID, n)
			}
		}
	}
}

func TestKindString(t *testing.T) {
	want := []string{"kind(0)", "original", "mirror", "edited", "truncated", "exact", "reordered",
		"quoted", "noisy", "plaintext", "excerpt", "kind(11)"}
	for k := Kind(0); k <= 11; k++ {
		if k.String() != want[k] {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), want[k])
		}
		if got, ok := ParseKind(want[k]); ok != (k >= Original && k <= Excerpt) || ok && got != k {
			t.Errorf("ParseKind(%q) = %v, %v", want[k], got, ok)
		}
	}
}

func TestParseKinds(t *testing.T) {
	f := func(in string, want []Kind) {
		t.Helper()
		got, err := ParseKinds(in)
		if (err == nil) != (want != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseKinds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	f("all", AllKinds())
	f("quoted", []Kind{Quoted})
	f("mirror, plaintext,noisy", []Kind{Mirror, Plaintext, Noisy})
	f("original", nil)
	f("mirror,", nil)
	f("quote", nil)
	if err := (Options{Kinds: []Kind{Original}}).Validate(); err == nil {
		t.Error("Kinds {Original} validated")
	}
	if err := (Options{Kinds: []Kind{}}).Validate(); err == nil {
		t.Error("empty Kinds validated")
	}
}
