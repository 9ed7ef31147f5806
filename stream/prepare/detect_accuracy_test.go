package prepare

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
)

// The detection test set: pages of several languages, each encoded in every
// listed encoding that can represent it, as plain text and as HTML, cut to
// 200, 1,000 and 5,000 bytes, and decoded with detection on. Sources:
//
//   - ru: Russian pages of the page generator (offline/lab/gen, seed 2; the
//     bigram table is counted from seed 1 and offline/lab/detectgen/ru.txt);
//   - en: Reuters-21578 and 20 Newsgroups (../shared/corpora), typeset as a
//     web page would be (curly quotes and apostrophes, dashes), one story
//     after another until the page is full;
//   - western, ja, zh-hans, zh-hant, ko: hand-written sentences
//     (testdata/detect), drawn in a random order, with repeats, per page.
//
// There is no CJK corpus here: the CJK pages are a few hundred hand-written
// sentences, shuffled.

// detectLang is a language of the test set and the encodings it is written
// in; the other listed encodings that can represent its pages are tried
// too, as crosses.
type detectLang struct {
	name   string
	native []string
	pages  func(t *testing.T, n int) []detectPage
}

// detectPage is a page's title and paragraphs.
type detectPage struct {
	title string
	paras []string
}

var detectEncodings = []string{"windows-1251", "koi8-r", "ibm866", "iso-8859-5", "x-mac-cyrillic", "windows-1252",
	"shift_jis", "euc-jp", "euc-kr", "gbk", "big5"}

var detectLangs = []detectLang{
	{"ru", []string{"windows-1251", "koi8-r", "ibm866", "iso-8859-5", "x-mac-cyrillic"}, generatedRussian},
	{"en", []string{"windows-1252"}, corpusEnglish},
	{"western", []string{"windows-1252"}, sentences("western.txt", " ")},
	{"ja", []string{"shift_jis", "euc-jp"}, sentences("ja.txt", "")},
	{"zh-hans", []string{"gbk"}, sentences("zh-hans.txt", "")},
	{"zh-hant", []string{"big5"}, sentences("zh-hant.txt", "")},
	{"ko", []string{"euc-kr"}, sentences("ko.txt", " ")},
}

var detectSizes = []int{200, 1000, 5000}

func generatedRussian(t *testing.T, n int) []detectPage {
	g := gen.New(gen.Options{Seed: 2, Russian: 1, CopyRate: -1})
	pages := make([]detectPage, n)
	for i := range pages {
		html := g.Next().HTML
		pages[i].title = between(html, "<h1>", "</h1>")[0]
		pages[i].paras = between(html, "<p>", "</p>")
	}
	return pages
}

// between is every text of s between open and closing.
func between(s, open, closing string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(s, open)
		if !ok {
			return out
		}
		var text string
		if text, s, ok = strings.Cut(rest, closing); !ok {
			return out
		}
		out = append(out, text)
	}
}

// errEnough stops reading a corpus.
var errEnough = errors.New("enough")

func corpusEnglish(t *testing.T, n int) []detectPage {
	var docs []corpus.Doc
	for _, name := range []string{"reuters21578.tar.gz", "20news-bydate.tar.gz"} {
		path := filepath.Join("..", "..", "..", "shared", "corpora", name)
		if _, err := os.Stat(path); err != nil {
			t.Logf("en: %s not found (../shared/corpora beside the repository): no English pages from it", name)
			continue
		}
		got := 0
		err := corpus.Read(path, 0, func(d corpus.Doc) error {
			if len(d.Body) < 300 {
				return nil
			}
			docs = append(docs, d)
			if got++; got == 4*n {
				return errEnough
			}
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			t.Fatal(err)
		}
	}
	if len(docs) == 0 {
		return nil
	}
	pages := make([]detectPage, n)
	for i := range pages {
		// Stories one after another, until there is more than enough.
		for j, size := i, 0; size < 6000; j++ {
			d := docs[j%len(docs)]
			if pages[i].title == "" {
				pages[i].title = typeset(d.Title)
			}
			for p := range strings.SplitSeq(d.Body, "\n\n") {
				if p = strings.Join(strings.Fields(p), " "); p != "" {
					pages[i].paras = append(pages[i].paras, typeset(p))
					size += len(p)
				}
			}
		}
	}
	return pages
}

// typeset writes text as a web page would: curly quotes and apostrophes,
// dashes for double hyphens.
func typeset(s string) string {
	var b strings.Builder
	open := true
	for i, r := range s {
		switch {
		case r == '"':
			if open {
				b.WriteString("“")
			} else {
				b.WriteString("”")
			}
			open = !open
		case r == '\'' && i > 0:
			b.WriteString("’")
		case r == '-' && strings.HasPrefix(s[i:], "--"):
			b.WriteString("—")
		case r == '-' && i > 0 && s[i-1] == '-':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sentences makes pages from the hand-written sentences of file, joined by
// sep: each paragraph 2–5 of them, drawn at random.
func sentences(file, sep string) func(t *testing.T, n int) []detectPage {
	return func(t *testing.T, n int) []detectPage {
		f, err := os.Open(filepath.Join("testdata", "detect", file))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var pool []string
		for sc := bufio.NewScanner(f); sc.Scan(); {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				pool = append(pool, line)
			}
		}
		r := rand.New(rand.NewPCG(uint64(len(file)), 2))
		pages := make([]detectPage, n)
		for i := range pages {
			pages[i].title = pool[r.IntN(len(pool))]
			for size := 0; size < 6000; {
				var para []string
				for range 2 + r.IntN(4) {
					para = append(para, pool[r.IntN(len(pool))])
				}
				p := strings.Join(para, sep)
				pages[i].paras = append(pages[i].paras, p)
				size += len(p)
			}
		}
		return pages
	}
}

// render is p as plain text or as HTML, in UTF-8.
func (p detectPage) render(html bool) string {
	if !html {
		return p.title + "\n\n" + strings.Join(p.paras, "\n\n")
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><title>" + p.title + "</title></head>\n<body><h1>" + p.title + "</h1>\n")
	for _, para := range p.paras {
		b.WriteString("<p>" + para + "</p>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// encodeCut is page in encoding name, cut after the last whole character
// that ends within size bytes; ok is false if the encoding cannot represent
// that much of the page.
func encodeCut(name, page string, size int) ([]byte, bool) {
	e, err := htmlindex.Get(name)
	if err != nil {
		panic(err)
	}
	enc := e.NewEncoder()
	var out []byte
	for _, r := range page {
		c, err := enc.Bytes(utf8.AppendRune(nil, r))
		if err != nil {
			return nil, false
		}
		if len(out)+len(c) > size {
			break
		}
		out = append(out, c...)
	}
	return out, true
}

// detectCell is the outcome of one language, encoding, form and size.
type detectCell struct {
	pages, right, wrong, unsure int
	utf8                        int // pages that were valid UTF-8 (and so never detected)
	wrongAs                     map[string]int
}

func (c detectCell) accuracy() float64 {
	if c.pages == c.utf8 {
		return 1
	}
	return float64(c.right) / float64(c.pages-c.utf8)
}

// TestDetectAccuracy decodes the test set with detection on and holds each
// listed encoding, in the languages it is written in, to 99% of its pages
// detected right at 1,000 bytes and more. A page that came out valid UTF-8
// (pure ASCII) must come out of decode unchanged. The table it logs (-v) is
// docs/encodings.md's.
func TestDetectAccuracy(t *testing.T) {
	n := 100
	if testing.Short() || raceEnabled {
		n = 10
	}
	type key struct {
		lang, enc, form string
		size            int
	}
	cells := make(map[key]*detectCell)
	d := testDecoder(FormatRaw)
	for _, l := range detectLangs {
		pages := l.pages(t, n)
		if len(pages) == 0 {
			t.Logf("%s: no pages", l.name)
			continue
		}
		for _, enc := range detectEncodings {
			for _, form := range []string{"text", "html"} {
				for _, size := range detectSizes {
					c := &detectCell{wrongAs: make(map[string]int)}
					for _, p := range pages {
						v, ok := encodeCut(enc, p.render(form == "html"), size)
						if !ok {
							continue
						}
						c.pages++
						rec, err := d.decode(&kafka.Message{Value: v})
						switch {
						case utf8.Valid(v):
							c.utf8++
							if err != nil || string(rec.Body) != string(v) || rec.Charset != "" {
								t.Errorf("%s %s %s %d: a UTF-8 page changed: %v, %q", l.name, enc, form, size, err, rec.Charset)
							}
						case err != nil:
							c.unsure++
						case rec.Charset == enc && rec.CharsetDetected:
							c.right++
						default:
							c.wrong++
							c.wrongAs[rec.Charset]++
						}
					}
					if c.pages > 0 {
						cells[key{l.name, enc, form, size}] = c
					}
				}
			}
		}
	}
	var native, cross strings.Builder
	fmt.Fprintf(&native, "| language | encoding | form | %s |\n|---|---|---|---|---|---|\n", sizesHeader())
	fmt.Fprintf(&cross, "| language | encoding | form | %s |\n|---|---|---|---|---|---|\n", sizesHeader())
	for _, l := range detectLangs {
		for _, enc := range detectEncodings {
			for _, form := range []string{"text", "html"} {
				if cells[key{l.name, enc, form, detectSizes[0]}] == nil {
					continue
				}
				isNative := slices.Contains(l.native, enc)
				row := fmt.Sprintf("| %s | %s | %s |", l.name, enc, form)
				for _, size := range detectSizes {
					c := cells[key{l.name, enc, form, size}]
					if c == nil {
						row += " — |"
						if isNative {
							t.Errorf("%s in %s as %s at %d bytes: no page the encoding can represent", l.name, enc, form, size)
						}
						continue
					}
					row += " " + c.String() + " |"
					if isNative && size >= 1000 && c.accuracy() < 0.99 {
						t.Errorf("%s in %s as %s at %d bytes: %s right, want at least 99%%", l.name, enc, form, size, c)
					}
				}
				if isNative {
					native.WriteString(row + "\n")
				} else {
					cross.WriteString(row + "\n")
				}
			}
		}
	}
	t.Logf("pages per cell: %d\n\nIn the encodings each language is written in:\n\n%s\nCrosses (a listed encoding that can represent the page but is not one the language is written in):\n\n%s", n, native.String(), cross.String())
}

func sizesHeader() string {
	var s []string
	for _, size := range detectSizes {
		s = append(s, fmt.Sprintf("%d bytes", size))
	}
	return strings.Join(s, " | ")
}

// String is the cell as the table shows it: the share detected right, and
// what else happened.
func (c *detectCell) String() string {
	if c.pages == c.utf8 {
		return fmt.Sprintf("all %d UTF-8", c.pages)
	}
	s := fmt.Sprintf("%.1f%%", 100*c.accuracy())
	var notes []string
	if c.unsure > 0 {
		notes = append(notes, fmt.Sprintf("%d unsure", c.unsure))
	}
	var as []string
	for name, k := range c.wrongAs {
		as = append(as, fmt.Sprintf("%d %s", k, name))
	}
	slices.Sort(as)
	notes = append(notes, as...)
	if c.utf8 > 0 {
		notes = append(notes, fmt.Sprintf("%d UTF-8", c.utf8))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// TestDetectNoText: bytes that are no text in any encoding — random bytes,
// NUL aside — are not detected with confidence.
func TestDetectNoText(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	confident := 0
	const n = 500
	for range n {
		v := make([]byte, 200+r.IntN(2000))
		for i := range v {
			v[i] = byte(1 + r.IntN(255))
		}
		if utf8.Valid(v) {
			continue
		}
		if d := detectCharset(v); d.confident() {
			confident++
			t.Logf("%d random bytes detected as %s, confidence %.2f", len(v), d.name, d.confidence)
		}
	}
	if confident > 0 {
		t.Errorf("%d of %d random values detected with confidence", confident, n)
	}
}
