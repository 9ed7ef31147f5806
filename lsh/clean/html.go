package clean

import (
	"bytes"
	"slices"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// searchDepth bounds how far down the open-element stack an end tag looks for
// its start tag, so a flood of stray end tags costs linear time.
const searchDepth = 256

// tagID names an element: its atom when the name is a known HTML name,
// otherwise a hash with the top bit set (atoms never set it).
type tagID uint32

// tagName returns the lower-cased element name of a raw start or end tag
// ("<DIV class=x>" or "</div >"), using buf for storage. Reading the name from
// the raw bytes avoids the copy Tokenizer.TagName makes of every name.
func tagName(raw []byte, buf *[32]byte) []byte {
	raw = bytes.TrimPrefix(raw[1:], []byte("/"))
	n := 0
	for n < len(raw) && n < len(buf) {
		c := raw[n]
		switch c {
		case ' ', '\t', '\n', '\r', '\f', '/', '>':
			return buf[:n]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return buf[:n]
}

// tagIDOf returns the id of a lower-case element name.
func tagIDOf(name []byte) tagID {
	if a := atom.Lookup(name); a != 0 {
		return tagID(a)
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range name {
		h = (h ^ uint32(c)) * 16777619
	}
	return tagID(h | 1<<31)
}

// HTML appends the normalised main text of an HTML page to dst.
func (c *Cleaner) HTML(dst, page []byte) ([]byte, Result) {
	s := c.get()
	defer c.put(s)
	s.body.reset(dst, c.maxTokens)
	s.title.reset(s.titleBuf[:0], c.maxTokens)
	k := walk{s: s, drop: c.drop, page: page}
	s.page.Reset(page)
	k.run(html.NewTokenizer(&s.page))
	s.titleBuf = s.title.dst
	r := Result{Tokens: s.body.tokens, Truncated: s.body.full}
	if len(s.titleBuf) > 0 {
		r.Title = string(s.titleBuf)
	}
	return s.body.dst, r
}

// walk is the state of one pass over a page's tokens.
type walk struct {
	s         *state
	drop      []tagID
	page      []byte
	off       int      // bytes of page consumed by the tokenizer
	unclosed  []tagID  // raw-text elements with no end tag left in the page
	dropAt    int      // 1 + stack index of the outermost skipped element; 0 if none
	titleNext bool     // the next text token is <title> content
	haveTitle bool     // the first <title> has been seen
	name      [32]byte // scratch for the current tag name
	form      formMark // an open page-level <form>, kept only if it proves to be content
}

// formMark remembers where the body stood when a page-level <form> opened.
type formMark struct {
	at     int // 1 + its index in the open-element stack; 0 if none is open
	len    int // len(body.dst) at its start
	tokens int // body.tokens at its start
}

// minPageFormWords is how many words a page-level <form> must hold to be kept:
// an ASP.NET WebForms page wraps its whole content in one, while a cookie
// banner, a search box or a newsletter sign-up is a few words of chrome.
const minPageFormWords = 40

// run consumes tokens until the end of input or the word cap.
func (k *walk) run(z *html.Tokenizer) {
	for !k.s.body.full {
		tt := z.Next()
		k.off += len(z.Raw())
		title := k.titleNext
		k.titleNext = false
		switch tt {
		case html.ErrorToken:
			if k.form.at > 0 { // an unclosed page-level form ends with the page
				k.closeForm()
			}
			return
		case html.TextToken:
			k.text(z.Text(), title)
		case html.StartTagToken, html.SelfClosingTagToken:
			name := tagName(z.Raw(), &k.name)
			id := tagIDOf(name)
			if isRawText(id) && !k.closeAhead(id, name) {
				z.NextIsNotRawText()
			}
			k.start(id, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			k.end(tagIDOf(tagName(z.Raw(), &k.name)))
		}
	}
}

// closeAhead reports whether the rest of the page holds an end tag for the
// raw-text element id. If it does not, the caller parses the content as
// markup instead, so an unclosed <script> or <title> does not swallow the
// rest of the page. Misses are remembered, which keeps a flood of unclosed
// raw-text tags linear.
func (k *walk) closeAhead(id tagID, name []byte) bool {
	if id == tagID(atom.Plaintext) {
		return true // plaintext runs to the end of input by definition
	}
	if slices.Contains(k.unclosed, id) {
		return false
	}
	for rest := k.page[k.off:]; ; {
		i := bytes.Index(rest, []byte("</"))
		if i < 0 {
			k.unclosed = append(k.unclosed, id)
			return false
		}
		rest = rest[i+2:]
		if len(rest) > len(name) && bytes.EqualFold(rest[:len(name)], name) {
			switch rest[len(name)] {
			case ' ', '\t', '\n', '\r', '\f', '/', '>':
				return true
			}
		}
	}
}

// text routes a text token to the title, the body, or nowhere.
func (k *walk) text(b []byte, title bool) {
	switch {
	case title:
		if !k.haveTitle {
			k.s.title.write(b)
			k.haveTitle = k.s.title.tokens > 0
		}
	case k.dropAt == 0:
		k.s.body.write(b)
	}
}

// start handles a start tag.
func (k *walk) start(id tagID, selfClosing bool) {
	if isBlock(id) {
		k.s.body.brk()
	}
	k.closeImplied(id)
	if id == tagID(atom.Main) || id == tagID(atom.Body) {
		k.endDrop() // page chrome cannot contain the main content
	}
	// The tokenizer reads a raw-text element's content as text even when
	// the tag ends in "/>", so such an element is open either way.
	if isVoid(id) || selfClosing && !isRawText(id) {
		return
	}
	if k.dropAt == 0 && k.dropped(id) {
		if k.pageForm(id) {
			k.form = formMark{at: len(k.s.stack) + 1, len: len(k.s.body.dst), tokens: k.s.body.tokens}
		} else {
			k.dropAt = len(k.s.stack) + 1
		}
	}
	k.s.stack = append(k.s.stack, id)
	k.titleNext = id == tagID(atom.Title) && k.dropAt == 0
}

// end handles an end tag: it closes the nearest open element of that name and
// everything opened inside it. A stray end tag is ignored.
func (k *walk) end(id tagID) {
	if isBlock(id) {
		k.s.body.brk()
	}
	st := k.s.stack
	for i := len(st) - 1; i >= 0 && i >= len(st)-searchDepth; i-- {
		if st[i] == id {
			k.popTo(i)
			return
		}
	}
	if k.dropAt > 0 && st[k.dropAt-1] == id {
		k.endDrop()
	}
}

// dropped reports whether the subtree of id is skipped. Elements whose
// content the tokenizer returns as unparsed markup are always skipped.
func (k *walk) dropped(id tagID) bool {
	switch atom.Atom(id) {
	case atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript:
		return true
	}
	for _, d := range k.drop {
		if d == id {
			return true
		}
	}
	return false
}

// pageForm reports whether id is a <form> that may wrap the whole page (its
// parent is <body> or <html>, or it has none), as ASP.NET WebForms pages do.
// Dropping such a form would drop everything, so its text is written and
// taken back when it closes if it was too short to be content (closeForm).
func (k *walk) pageForm(id tagID) bool {
	if id != tagID(atom.Form) {
		return false
	}
	st := k.s.stack
	return len(st) == 0 || st[len(st)-1] == tagID(atom.Body) || st[len(st)-1] == tagID(atom.Html)
}

// endDrop closes the skipped element and everything inside it.
func (k *walk) endDrop() {
	if k.dropAt > 0 {
		k.popTo(k.dropAt - 1)
	}
}

// popTo truncates the open-element stack to n entries.
func (k *walk) popTo(n int) {
	k.s.stack = k.s.stack[:n]
	if k.dropAt > n {
		k.dropAt = 0
	}
	if k.form.at > n {
		k.closeForm()
	}
}

// closeForm takes back the text of a page-level form that held fewer than
// minPageFormWords words.
func (k *walk) closeForm() {
	b := &k.s.body
	if b.tokens-k.form.tokens < minPageFormWords && !b.full {
		b.dst, b.tokens, b.inWord = b.dst[:k.form.len], k.form.tokens, false
	}
	k.form = formMark{}
}

// closeImplied closes elements whose end tag HTML lets authors omit when the
// element id starts: an open <p>, or a sibling list item, cell, row or option.
// Without this, every unclosed <p> or <li> would deepen the stack.
func (k *walk) closeImplied(id tagID) {
	for n := len(k.s.stack); n > 0; n-- {
		top := atom.Atom(k.s.stack[n-1])
		if !impliedEnd(top, atom.Atom(id)) {
			return
		}
		k.popTo(n - 1)
	}
}

// impliedEnd reports whether an open top element ends when next starts.
func impliedEnd(top, next atom.Atom) bool {
	switch top {
	case atom.P:
		return closesP(next)
	case atom.Li:
		return next == atom.Li
	case atom.Dt, atom.Dd:
		return next == atom.Dt || next == atom.Dd
	case atom.Td, atom.Th:
		return next == atom.Td || next == atom.Th || next == atom.Tr
	case atom.Tr:
		return next == atom.Tr
	case atom.Option:
		return next == atom.Option
	}
	return false
}
