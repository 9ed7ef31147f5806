package gen

import (
	"html"
	"strings"
	"testing"
)

func TestPagesAreHTML(t *testing.T) {
	templates := map[string]int{}
	for _, lang := range []float64{-1, 1} {
		for _, p := range pages(Options{Seed: 4, Russian: lang}, 300) {
			if err := checkHTML(p.HTML); err != nil {
				t.Fatalf("%s (%s) %s: %v", p.ID, p.Kind, p.URL, err)
			}
			templates[host(p.URL)]++
		}
	}
	if len(templates) < len(sites())+1 { // every site, plus the web cache of Exact copies
		t.Errorf("pages used only %v", templates)
	}
}

func TestCheckHTMLFails(t *testing.T) {
	good := pages(Options{Seed: 1, CopyRate: -1}, 1)[0].HTML
	if err := checkHTML(good); err != nil {
		t.Fatal(err)
	}
	f := func(old, new string) {
		t.Helper()
		bad := strings.Replace(good, old, new, 1)
		if bad == good {
			t.Fatalf("%q not in page", old)
		}
		if checkHTML(bad) == nil {
			t.Errorf("checkHTML accepted a page with %q replaced by %q", old, new)
		}
	}
	f("</p>", "")
	f("</article>", "</aside>")
	f("<h1>", "<h1>a & b <i>")
	f("<nav", "<div")
}

func TestEscaping(t *testing.T) {
	g := New(Options{Seed: 1, CopyRate: 0.9})
	title := `<script>alert("x")</script> & Co's "best"`
	body := "Price < 5 & rising > 3.\n\n<b>not bold</b> &amp; kept"
	for _, p := range g.Wrap(title, body, "esc") {
		if err := checkHTML(p.HTML); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if strings.Contains(p.HTML, "<script>alert") || strings.Contains(p.HTML, "<b>not") {
			t.Fatalf("%s: text not escaped", p.ID)
		}
		if p.Kind == Original || p.Kind == Mirror || p.Kind == Exact {
			want := []string{title, "Price < 5 & rising > 3.", "<b>not bold</b> &amp; kept"}
			if got := articleText(p.HTML); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: article %q, want %q", p.ID, got, want)
			}
		}
	}
	if !strings.Contains(g.Wrap(title, body, "esc")[0].HTML, html.EscapeString(title)) {
		t.Error("title not escaped with html.EscapeString")
	}
}
