package gen

import (
	"html"
	"slices"
	"strings"
	"testing"
)

// allKinds returns each copy of n pages made with every kind, next to its original.
func allKinds(t *testing.T, n int) map[Kind][][2]Page {
	t.Helper()
	g := New(Options{Seed: 21, Kinds: AllKinds(), CopyRate: 0.5})
	orig := map[string]Page{}
	out := map[Kind][][2]Page{}
	for range n {
		p := g.Next()
		if p.Kind == Original {
			orig[p.ID] = p
		} else {
			out[p.Kind] = append(out[p.Kind], [2]Page{orig[p.Origin], p})
		}
	}
	for _, k := range AllKinds() {
		if len(out[k]) < 20 {
			t.Fatalf("only %d %s copies", len(out[k]), k)
		}
	}
	return out
}

func TestQuoted(t *testing.T) {
	for _, p := range allKinds(t, 800)[Quoted] {
		o, c := p[0], p[1]
		if err := checkHTML(c.HTML); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		a := articleText(o.HTML)
		quote := "<blockquote>\n<h2>" + html.EscapeString(a[0]) + "</h2>\n"
		for _, para := range a[1:] {
			quote += "<p>" + html.EscapeString(para) + "</p>\n"
		}
		quote += "</blockquote>\n"
		if !strings.Contains(c.HTML, quote) {
			t.Fatalf("%s does not quote %s whole", c.ID, o.ID)
		}
		ow, cw := tokens(strings.Join(a, " ")), tokens(strings.Join(articleText(c.HTML), " "))
		if len(cw) < 2*len(ow) || strings.Index(c.HTML, quote) < strings.Index(c.HTML, "</h1>\n<p>") {
			t.Fatalf("%s: %d words around a quote of %d, or the quote comes first", c.ID, len(cw), len(ow))
		}
	}
}

func TestNoisy(t *testing.T) {
	changed := 0
	for _, p := range allKinds(t, 800)[Noisy] {
		o, c := p[0], p[1]
		if err := checkHTML(c.HTML); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		a, b := articleText(o.HTML), articleText(c.HTML)
		if !slices.Equal(tokens(strings.Join(a, "\n")), tokens(strings.Join(b, "\n"))) {
			t.Fatalf("%s: words differ from %s after folding case and punctuation", c.ID, o.ID)
		}
		for i := range a {
			if a[i] != b[i] {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("noisy copies are the original text")
	}
}

func TestPlaintext(t *testing.T) {
	for _, p := range allKinds(t, 800)[Plaintext] {
		o, c := p[0], p[1]
		if strings.ContainsAny(c.HTML, "<>&") {
			t.Fatalf("%s is not plain text: %.80q", c.ID, c.HTML)
		}
		want := articleText(o.HTML)
		if got := strings.Split(strings.TrimSpace(c.HTML), "\n\n"); !slices.Equal(got, want) {
			t.Fatalf("%s: text %q, want the title and paragraphs of %s %q", c.ID, got, o.ID, want)
		}
	}
}

func TestWrapAllKinds(t *testing.T) {
	g := New(Options{Seed: 2, Kinds: AllKinds(), CopyRate: 0.8})
	body := "First paragraph of a real story, with <tags> & entities.\n\nSecond paragraph, longer than the first one by a few words."
	seen := map[Kind]int{}
	for i := range 200 {
		for _, p := range g.Wrap("A title", body, "doc"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26)) {
			seen[p.Kind]++
			if p.Kind == Plaintext {
				if !strings.Contains(p.HTML, "with <tags> & entities.") {
					t.Fatalf("%s: plain text %q lost the body", p.ID, p.HTML)
				}
			} else if err := checkHTML(p.HTML); err != nil {
				t.Fatalf("%s (%s): %v", p.ID, p.Kind, err)
			}
		}
	}
	for _, k := range AllKinds() {
		if seen[k] == 0 {
			t.Errorf("Wrap made no %s copy in 200 documents: %v", k, seen)
		}
	}
}

// TestExcerpt: an excerpt is its original's title over a contiguous run of about a
// third of its paragraphs, at least one, in order.
func TestExcerpt(t *testing.T) {
	for _, p := range allKinds(t, 800)[Excerpt] {
		o, c := articleText(p[0].HTML), articleText(p[1].HTML)
		if err := checkHTML(p[1].HTML); err != nil {
			t.Fatalf("%s: %v", p[1].ID, err)
		}
		paras, want := c[1:], max(1, (len(o)-1+2)/3)
		i := slices.Index(o[1:], paras[0])
		if c[0] != o[0] || len(paras) != want || i < 0 || !slices.Equal(o[1+i:1+i+len(paras)], paras) {
			t.Fatalf("%s: %d paragraphs under %q, not a run of %d of the %d of %s under %q",
				p[1].ID, len(paras), c[0], want, len(o)-1, p[0].ID, o[0])
		}
	}
}
