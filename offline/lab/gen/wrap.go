package gen

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
)

// maxWrapCopies bounds the near-copies Wrap makes of one document.
const maxWrapCopies = 5

// wrapSalt separates Wrap's random streams from Next's.
const wrapSalt = 0x5772617020676e21

// Wrap makes pages from a real document for demos on real corpora: the original (id,
// Kind Original) in a site template chosen by the rng, then near-copies while a coin
// with probability CopyRate comes up (at most 5, so on average CopyRate of all pages
// are copies, as with Next). Each copy's kind is uniform over Options.Kinds
// (Reordered becomes Mirror for a document of one paragraph); its id is
// "<id>~<kind><n>". See the package doc for what each kind does to resemblance.
//
// body is plain text; paragraphs are separated by blank or indented lines, and it is
// HTML-escaped, so HTML input shows as text. The result depends only on the Options
// and the arguments, not on earlier calls, and Wrap does not move Next's sequence.
func (g *Generator) Wrap(title, body, id string) []Page {
	h := fnv.New64a()
	h.Write([]byte(id))
	r := rand.New(rand.NewPCG(g.o.Seed^wrapSalt, h.Sum64()))
	a := &article{
		lang:    detectLang(title + " " + body),
		title:   strings.Join(strings.Fields(title), " "),
		paras:   paragraphs(body),
		date:    randomDate(r),
		section: r.IntN(len(g.sections)),
	}
	si := r.IntN(len(g.sites))
	slug := slugify(id)
	orig := Page{ID: id, Origin: id, Kind: Original, URL: g.url(si, a, slug)}
	orig.HTML = g.newView(r, si, a, orig.URL).render()
	pages := []Page{orig}
	for len(pages) <= maxWrapCopies && r.Float64() < g.o.CopyRate {
		kind := g.o.Kinds[r.IntN(len(g.o.Kinds))]
		if kind == Reordered && len(a.paras) < 2 {
			kind = Mirror
		}
		n := strconv.Itoa(len(pages))
		pages = append(pages, g.derive(r, orig, a, si, kind, id+"~"+kind.String()+n, slug+"-"+n))
	}
	return pages
}

// derive makes a near-copy of the given kind of page orig, whose article is a on site
// si. slug names the copy in its URL.
func (g *Generator) derive(r *rand.Rand, orig Page, a *article, si int, kind Kind, id, slug string) Page {
	p := Page{ID: id, Origin: orig.ID, Kind: kind}
	if kind == Exact {
		p.HTML, p.URL = orig.HTML, exactURL(r, orig.URL, slug[strings.LastIndexByte(slug, '-')+1:])
		return p
	}
	c := *a
	csi := r.IntN(len(g.sites))
	switch kind {
	case Mirror:
		csi = (si + 1 + r.IntN(len(g.sites)-1)) % len(g.sites)
	case Edited:
		c.paras = edit(r, a.paras, g.o.EditRate, g.words(a.lang))
	case Truncated:
		c.paras = truncate(a.paras, 0.7+0.2*r.Float64())
	case Reordered:
		c.paras = reorder(r, a.paras)
	case Excerpt:
		c.paras = excerpt(r, a.paras)
	case Quoted:
		c = g.quoting(r, a)
	case Noisy:
		c.title, c.paras = noise(r, a.title), noiseAll(r, a.paras)
	case Plaintext:
		p.URL, p.HTML = g.url(csi, &c, slug)+"?format=text", plainText(&c)
		return p
	}
	p.URL = g.url(csi, &c, slug)
	p.HTML = g.newView(r, csi, &c, p.URL).render()
	return p
}

// exactURL returns another address for a byte-identical copy: the same URL with
// tracking parameters, or a web-cache address; ref tells copies of one page apart.
func exactURL(r *rand.Rand, orig, ref string) string {
	if r.IntN(2) == 0 {
		return orig + "?utm_source=feed&utm_medium=rss&ref=" + ref
	}
	return "https://webcache.example.org/" + ref + "/" + strings.TrimPrefix(orig, "https://")
}

// paragraphs splits plain text at blank lines and at indented lines (Reuters marks
// paragraphs by indenting), joining the lines of a paragraph with single spaces.
func paragraphs(text string) []string {
	var out, cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(text, "\n") {
		ws := strings.Fields(line)
		if len(ws) == 0 || line[0] == ' ' || line[0] == '\t' {
			flush()
		}
		if len(ws) > 0 {
			cur = append(cur, strings.Join(ws, " "))
		}
	}
	flush()
	return out
}

// detectLang returns "ru" when most letters of s are Cyrillic, else "en".
func detectLang(s string) string {
	cyr, other := 0, 0
	for _, c := range s {
		switch {
		case unicode.Is(unicode.Cyrillic, c):
			cyr++
		case unicode.IsLetter(c):
			other++
		}
	}
	if cyr > other {
		return "ru"
	}
	return "en"
}

// slugify turns an id into a URL path segment of lower-case ASCII letters, digits
// and dashes.
func slugify(id string) string {
	var sb strings.Builder
	dash := false
	for _, c := range strings.ToLower(id) {
		if c < 0x80 && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			sb.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
		if sb.Len() >= 80 {
			break
		}
	}
	if sb.Len() == 0 {
		return "doc"
	}
	return sb.String()
}
