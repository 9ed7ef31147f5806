package gen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Kind says how a page was derived from its original. The zero Kind is not valid.
type Kind int

// Kinds of page. Every kind but Original is a near-copy of an earlier Original.
const (
	Original  Kind = iota + 1 // a new page
	Mirror                    // same text in another site's template
	Edited                    // words substituted, deleted or inserted at EditRate
	Truncated                 // only the first 70–90% of the words
	Exact                     // the original's HTML byte for byte at another URL
	Reordered                 // paragraphs shuffled
	Quoted                    // the whole original quoted inside a larger new article
	Noisy                     // case and punctuation changed, the words kept
	Plaintext                 // the article as plain text, not HTML
	Excerpt                   // about a third of the original's paragraphs, after it: a small page inside a larger earlier one
)

// DefaultKinds are the kinds of near-copy Next and Wrap make unless Options.Kinds
// says otherwise: the five of the first generator, so that its pages for a seed
// stay as they were.
func DefaultKinds() []Kind { return []Kind{Mirror, Edited, Truncated, Exact, Reordered} }

// AllKinds are every kind of near-copy.
func AllKinds() []Kind { return append(DefaultKinds(), Quoted, Noisy, Plaintext, Excerpt) }

// String returns the lower-case name of k ("original", "mirror", ...).
func (k Kind) String() string {
	switch k {
	case Original:
		return "original"
	case Mirror:
		return "mirror"
	case Edited:
		return "edited"
	case Truncated:
		return "truncated"
	case Exact:
		return "exact"
	case Reordered:
		return "reordered"
	case Quoted:
		return "quoted"
	case Noisy:
		return "noisy"
	case Plaintext:
		return "plaintext"
	case Excerpt:
		return "excerpt"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Page is one generated page with its label.
type Page struct {
	ID     string // unique per page
	URL    string
	HTML   string // the page; plain text, not HTML, when Kind is Plaintext
	Origin string // ID of the original this page was derived from (== ID for originals)
	Kind   Kind
}

// Markup reports whether p.HTML holds markup: for every kind but Plaintext.
// The tools that write a page as an input record, or clean it as the stream
// would, ask this rather than the kind.
func (p Page) Markup() bool { return p.Kind != Plaintext }

// Options configure a Generator. A zero field means its default; a negative rate
// means zero (no copies, no edits, no Russian).
type Options struct {
	Seed       uint64
	CopyRate   float64 // probability a page from Next is a near-copy of an earlier original; default 0.3
	EditRate   float64 // fraction of words edited in an Edited copy; default 0.03
	Russian    float64 // fraction of originals written in Russian; default 0.2
	Paragraphs [2]int  // min and max paragraphs of an original; default (both zero) 4..10
	Kinds      []Kind  // kinds of near-copy, drawn uniformly; default (nil) DefaultKinds
	// Runs is the fraction of pages from Next whose main text ends in a long
	// run of one repeated token, as mail and crawled pages often do (see
	// run); default 0, none. Each page draws its own, copies too, from a
	// stream of its own, so Runs changes nothing else of a seed's pages.
	Runs float64
}

// WithDefaults returns o with zero fields set to their defaults and negative rates to 0.
func (o Options) WithDefaults() Options {
	rate := func(v, def float64) float64 {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	o.CopyRate = rate(o.CopyRate, 0.3)
	o.EditRate = rate(o.EditRate, 0.03)
	o.Russian = rate(o.Russian, 0.2)
	o.Runs = max(0, o.Runs)
	if o.Paragraphs == [2]int{} {
		o.Paragraphs = [2]int{4, 10}
	}
	if o.Kinds == nil {
		o.Kinds = DefaultKinds()
	}
	return o
}

// Validate reports the first field that is out of range once defaults are applied.
func (o Options) Validate() error {
	o = o.WithDefaults()
	for _, f := range []struct {
		name string
		v    float64
	}{{"CopyRate", o.CopyRate}, {"EditRate", o.EditRate}, {"Russian", o.Russian}, {"Runs", o.Runs}} {
		if !(f.v <= 1) {
			return fmt.Errorf("gen: %s %v is not in [0, 1]", f.name, f.v)
		}
	}
	if lo, hi := o.Paragraphs[0], o.Paragraphs[1]; lo < 1 || hi < lo || hi > 1000 {
		return fmt.Errorf("gen: Paragraphs %v is not 1 <= min <= max <= 1000", o.Paragraphs)
	}
	if len(o.Kinds) == 0 {
		return fmt.Errorf("gen: Kinds is empty")
	}
	for _, k := range o.Kinds {
		if k < Mirror || k > Excerpt {
			return fmt.Errorf("gen: Kinds: %s is not a kind of near-copy", k)
		}
	}
	return nil
}

// ParseKinds reads a comma-separated list of near-copy kinds ("mirror,quoted"), or
// "all" for AllKinds.
func ParseKinds(s string) ([]Kind, error) {
	if s == "all" {
		return AllKinds(), nil
	}
	var out []Kind
	for _, name := range strings.Split(s, ",") {
		k, ok := ParseKind(strings.TrimSpace(name))
		if !ok || k == Original {
			return nil, fmt.Errorf("gen: %q is not a kind of near-copy (%s, or all)", name, kindNames(AllKinds()))
		}
		out = append(out, k)
	}
	return out, nil
}

// ParseKind returns the Kind whose String is s.
func ParseKind(s string) (Kind, bool) {
	for k := Original; k <= Excerpt; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

func kindNames(ks []Kind) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

// Generator emits pages deterministically from Options.Seed. Originals are made from
// the word lists (sentences of 8–20 words, paragraphs of 3–7 sentences), so distinct
// originals have near-zero shingle overlap. A Generator remembers only the page
// numbers of its originals (each is regenerated from its own seed when copied), so
// memory grows by one int per original.
type Generator struct {
	o        Options
	rng      *rand.Rand // decides original or copy, and of what
	n        int        // pages emitted by Next
	origins  []int      // page numbers of the originals emitted so far
	en, ru   []string
	sections []string
	sites    []site
	labels   [2]labels // en, ru
}

// New returns a Generator. It panics if o is invalid; check o.Validate first when o
// comes from a user.
func New(o Options) *Generator {
	if err := o.Validate(); err != nil {
		panic(err)
	}
	o = o.WithDefaults()
	return &Generator{
		o:        o,
		rng:      rand.New(rand.NewPCG(o.Seed, 0)), // pages use splitmix64(num ≥ 1) ≠ 0
		en:       strings.Fields(englishWords),
		ru:       strings.Fields(russianWords),
		sections: strings.Fields(sectionSlugs),
		sites:    sites(),
		labels:   [2]labels{labelsFor("en"), labelsFor("ru")},
	}
}

// words returns the word list of lang.
func (g *Generator) words(lang string) []string {
	if lang == "ru" {
		return g.ru
	}
	return g.en
}

// pageRand returns the random source of page number num. The number is scrambled
// first so that neighbouring pages do not start from neighbouring PCG states.
func (g *Generator) pageRand(num int) *rand.Rand {
	return rand.New(rand.NewPCG(g.o.Seed, splitmix64(uint64(num))))
}

// splitmix64 is the SplitMix64 finaliser, a bijective 64-bit mixer.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Next returns the next page: with probability CopyRate a near-copy (of a kind chosen
// uniformly) of a uniformly chosen earlier original, else a new original.
func (g *Generator) Next() Page {
	g.n++
	num := g.n
	if len(g.origins) == 0 || g.rng.Float64() >= g.o.CopyRate {
		g.origins = append(g.origins, num)
		p, _, _ := g.original(num)
		return p
	}
	orig := g.origins[g.rng.IntN(len(g.origins))]
	kind := g.o.Kinds[g.rng.IntN(len(g.o.Kinds))]
	p, a, si := g.original(orig)
	a.run = g.run(num)
	return g.derive(g.pageRand(num), p, a, si, kind, pageID(num), g.slug(a, num))
}

func pageID(num int) string { return "p" + strconv.Itoa(num) }

// original regenerates original page num with its article and site index.
func (g *Generator) original(num int) (Page, *article, int) {
	r := g.pageRand(num)
	a := g.newArticle(r)
	a.run = g.run(num)
	si := r.IntN(len(g.sites))
	id := pageID(num)
	p := Page{ID: id, Origin: id, Kind: Original, URL: g.url(si, a, g.slug(a, num))}
	p.HTML = g.newView(r, si, a, p.URL).render()
	return p, a, si
}

// slug is the last part of a synthetic page's URL path.
func (g *Generator) slug(a *article, num int) string {
	if a.lang == "ru" {
		return "news-" + strconv.Itoa(num)
	}
	ws := strings.Fields(strings.ToLower(a.title))
	return strings.Join(ws[:min(5, len(ws))], "-") + "-" + strconv.Itoa(num)
}

// url returns the address of an article on site si.
func (g *Generator) url(si int, a *article, slug string) string {
	return "https://" + g.sites[si].domain + "/" + g.sections[a.section] + "/" +
		strconv.Itoa(a.date.Year()) + "/" + slug + ".html"
}
