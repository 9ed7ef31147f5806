package gen

import (
	"html"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// article is the main text of a page: the part that survives cleaning.
type article struct {
	lang    string // "en" or "ru"
	title   string
	paras   []string
	date    time.Time
	section int
	quote   *article // quoted whole before paragraph quoteAt (kind Quoted)
	quoteAt int
	run     tokenRun // after the paragraphs (Options.Runs); the zero run writes nothing
}

// link is one boilerplate link.
type link struct{ href, label string }

// view is everything a template needs to render one page.
type view struct {
	g        *Generator
	s        *site
	lab      *labels
	a        *article
	url      string
	date     string // shown in the masthead; varies per page
	related  []link
	token    string
	advert   string
	ad       int
	comments int
}

// newView draws a page's boilerplate (dates, related links, ad slot, token) from r.
func (g *Generator) newView(r *rand.Rand, si int, a *article, url string) *view {
	lab := &g.labels[0]
	if a.lang == "ru" {
		lab = &g.labels[1]
	}
	v := &view{
		g: g, s: &g.sites[si], lab: lab, a: a, url: url,
		date:     a.date.AddDate(0, 0, r.IntN(30)).Format("2006-01-02"),
		token:    strconv.FormatUint(r.Uint64(), 36),
		advert:   lab.adverts[r.IntN(len(lab.adverts))],
		ad:       r.IntN(100000),
		comments: r.IntN(500),
	}
	words := g.words(a.lang)
	for range 3 + r.IntN(4) {
		href := "/" + g.sections[r.IntN(len(g.sections))] + "/" + strconv.Itoa(100000+r.IntN(900000))
		v.related = append(v.related, link{href: href, label: title(r, words, 4, 8)})
	}
	return v
}

// render returns the page's HTML.
func (v *view) render() string {
	var sb strings.Builder
	sb.Grow(len(v.s.page) + 2048 + 80*len(v.a.paras)*8)
	v.expand(&sb, v.s.page, nil)
	return sb.String()
}

// expand writes tpl with its {{name}} placeholders replaced; item supplies {{href}}
// and {{label}} inside a menu or related-link entry.
func (v *view) expand(sb *strings.Builder, tpl string, item *link) {
	for {
		i := strings.Index(tpl, "{{")
		if i < 0 {
			sb.WriteString(tpl)
			return
		}
		sb.WriteString(tpl[:i])
		name, rest, _ := strings.Cut(tpl[i+2:], "}}")
		v.value(sb, name, item)
		tpl = rest
	}
}

// value writes the placeholder name.
func (v *view) value(sb *strings.Builder, name string, item *link) {
	switch name {
	case "href":
		sb.WriteString(html.EscapeString(item.href))
	case "label":
		sb.WriteString(html.EscapeString(item.label))
	case "nav":
		for i, label := range v.lab.nav {
			v.expand(sb, v.s.navItem, &link{href: "/" + v.g.sections[i] + "/", label: label})
		}
	case "related":
		for i := range v.related {
			v.expand(sb, v.s.relItem, &v.related[i])
		}
	case "article":
		writeArticle(sb, v.a)
	default:
		sb.WriteString(html.EscapeString(v.text(name)))
	}
}

// text returns the plain-text value of a placeholder; an unknown name is a bug in a
// template, which the tests catch.
func (v *view) text(name string) string {
	switch name {
	case "lang":
		return v.a.lang
	case "title":
		return v.a.title
	case "url":
		return v.url
	case "date":
		return v.date
	case "year":
		return strconv.Itoa(v.a.date.Year())
	case "token":
		return v.token
	case "ad":
		return strconv.Itoa(v.ad)
	case "comments":
		return strconv.Itoa(v.comments)
	case "advert":
		return v.advert
	}
	return v.lab.text(name)
}

// text returns a boilerplate label by placeholder name.
func (l *labels) text(name string) string {
	switch name {
	case "search":
		return l.search
	case "relatedHead":
		return l.relatedHead
	case "cookie":
		return l.cookie
	case "accept":
		return l.accept
	case "rights":
		return l.rights
	case "privacy":
		return l.privacy
	case "contact":
		return l.contact
	case "subscribe":
		return l.subscribe
	case "about":
		return l.about
	case "terms":
		return l.terms
	case "tagline":
		return l.tagline
	}
	panic("gen: template has unknown placeholder {{" + name + "}}")
}

// writeArticle writes the main text: the title as <h1>, then one <p> per paragraph.
func writeArticle(sb *strings.Builder, a *article) {
	sb.WriteString("<h1>")
	sb.WriteString(html.EscapeString(a.title))
	sb.WriteString("</h1>\n")
	for i, p := range a.paras {
		if a.quote != nil && i == a.quoteAt {
			writeQuote(sb, a.quote)
		}
		sb.WriteString("<p>")
		sb.WriteString(html.EscapeString(p))
		sb.WriteString("</p>\n")
	}
	a.run.writeHTML(sb)
}

// writeQuote writes a whole article as a block quotation: its title as <h2>, its
// paragraphs as <p>.
func writeQuote(sb *strings.Builder, q *article) {
	sb.WriteString("<blockquote>\n<h2>")
	sb.WriteString(html.EscapeString(q.title))
	sb.WriteString("</h2>\n")
	for _, p := range q.paras {
		sb.WriteString("<p>")
		sb.WriteString(html.EscapeString(p))
		sb.WriteString("</p>\n")
	}
	sb.WriteString("</blockquote>\n")
}
