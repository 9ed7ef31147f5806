package gen

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Texts written for these tests, shaped like the real corpora: Reuters marks
// paragraphs by indenting, newsgroup posts by blank lines.
const (
	wireText = `The harbour board said on Tuesday that grain shipments through the
northern port rose sharply in the first quarter, helped by an early
thaw and a new loading berth that opened in February.
    Officials said the board expects the rise to continue through the
summer, although rail capacity inland remains a concern for exporters
who have waited weeks for cars during the busy season.
    A spokesman for the exporters said members welcomed the new berth
but asked the board to publish its loading schedule further ahead so
that farmers can plan deliveries and avoid paying for storage.
    The board said it would consider the request at its next meeting.
 Reuter`
	postText = `Вчера вечером мы собрались у старого моста и долго спорили о том,
какой маршрут выбрать для летнего похода по северным озёрам.

Кто-то предлагал идти вдоль реки, кто-то хотел подняться на холмы, где
ещё лежит снег и откуда видно весь край до самого горизонта.

В итоге решили голосовать в пятницу, а пока каждый соберёт свой рюкзак
и проверит палатку, фонарь и запас чая на неделю.`
)

func TestWrap(t *testing.T) {
	g := New(Options{Seed: 21, CopyRate: 0.5})
	kinds := map[Kind]int{}
	copies, total := 0, 0
	for i := range 300 {
		id := "doc/" + strconv.Itoa(i)
		body, title := wireText, "Port grain shipments rise"
		if i%2 == 1 {
			body, title = postText, "Летний поход"
		}
		ps := g.Wrap(title, body, id)
		if !reflect.DeepEqual(ps, g.Wrap(title, body, id)) {
			t.Fatalf("%s: Wrap not deterministic", id)
		}
		orig := ps[0]
		if orig.ID != id || orig.Origin != id || orig.Kind != Original || len(ps) > 1+maxWrapCopies {
			t.Fatalf("%s: bad original %+v of %d pages", id, orig, len(ps))
		}
		checkWrapped(t, ps, body, title)
		for _, p := range ps[1:] {
			kinds[p.Kind]++
		}
		copies += len(ps) - 1
		total += len(ps)
	}
	if share := float64(copies) / float64(total); math.Abs(share-0.5) > 0.06 {
		t.Errorf("copies are %.3f of pages, want about CopyRate 0.5", share)
	}
	for k := Mirror; k <= Reordered; k++ {
		if kinds[k] < 30 {
			t.Errorf("only %d %s copies: %v", kinds[k], k, kinds)
		}
	}
}

// checkWrapped checks one Wrap result: valid pages, unique ids and URLs, and each
// copy's resemblance to the original within what its Kind promises.
func checkWrapped(t *testing.T, ps []Page, body, title string) {
	t.Helper()
	orig := articleText(ps[0].HTML)
	if want := append([]string{title}, paragraphs(body)...); !reflect.DeepEqual(orig, want) {
		t.Fatalf("original article %q, want %q", orig, want)
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.ID] || seen[p.URL] {
			t.Fatalf("%s: id or URL %s repeated", p.ID, p.URL)
		}
		seen[p.ID], seen[p.URL] = true, true
		if err := checkHTML(p.HTML); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if p.Origin != ps[0].ID || !strings.HasPrefix(p.ID, ps[0].ID) {
			t.Fatalf("%s: origin %s", p.ID, p.Origin)
		}
		// Short real texts have few shingles, so the bounds are looser than for Next.
		j := jaccard5(orig, articleText(p.HTML))
		lo := map[Kind]float64{Original: 1, Mirror: 1, Exact: 1, Truncated: 0.6, Reordered: 0.5, Edited: 0.4}[p.Kind]
		if j < lo || (p.Kind != Original && j == 1 && lo < 1) {
			t.Errorf("%s: Jaccard %.3f, want ≥ %.2f and < 1", p.ID, j, lo)
		}
		if p.Kind == Mirror && host(p.URL) == host(ps[0].URL) {
			t.Errorf("%s: mirror on the original's site %s", p.ID, p.URL)
		}
		if p.Kind != Original && (p.Kind == Exact) != (p.HTML == ps[0].HTML) {
			t.Errorf("%s: HTML identical to original: %v", p.ID, p.HTML == ps[0].HTML)
		}
	}
}

func TestWrapIndependentOfNext(t *testing.T) {
	a, b := New(Options{Seed: 3, CopyRate: 0.9}), New(Options{Seed: 3, CopyRate: 0.9})
	for range 10 {
		b.Next()
	}
	if !reflect.DeepEqual(a.Wrap("t", wireText, "x"), b.Wrap("t", wireText, "x")) {
		t.Error("Wrap depends on earlier Next calls")
	}
	if reflect.DeepEqual(a.Wrap("t", wireText, "x"), New(Options{Seed: 4, CopyRate: 0.9}).Wrap("t", wireText, "x")) {
		t.Error("Wrap ignores the seed")
	}
}

func TestParagraphs(t *testing.T) {
	f := func(in string, want ...string) {
		t.Helper()
		if got := paragraphs(in); !reflect.DeepEqual(got, want) {
			t.Errorf("paragraphs(%q) = %q, want %q", in, got, want)
		}
	}
	f("")
	f("one\nline", "one line")
	f("a\n\n\nb  c\n", "a", "b c")
	f("first\n    second\nmore\n\tthird", "first", "second more", "third")
}

func TestSlugAndLang(t *testing.T) {
	f := func(id, want string) {
		t.Helper()
		if got := slugify(id); got != want {
			t.Errorf("slugify(%q) = %q, want %q", id, got, want)
		}
	}
	f("reuters/reut2-003.sgm/NEWID=3021", "reuters-reut2-003-sgm-newid-3021")
	f("20news/train/sci.med/59284", "20news-train-sci-med-59284")
	f("ёжик", "doc")
	f("--A--", "a")
	if detectLang(postText) != "ru" || detectLang(wireText) != "en" {
		t.Error("detectLang")
	}
}
