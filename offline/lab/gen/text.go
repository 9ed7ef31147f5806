package gen

import (
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// capitalize upper-cases the first letter of w.
func capitalize(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	if n == 0 || unicode.IsUpper(r) {
		return w
	}
	return string(unicode.ToUpper(r)) + w[n:]
}

// title returns min..max random words, the first capitalised, without a full stop.
func title(r *rand.Rand, words []string, lo, hi int) string {
	var sb strings.Builder
	for i := range lo + r.IntN(hi-lo+1) {
		w := words[r.IntN(len(words))]
		if i == 0 {
			w = capitalize(w)
		} else {
			sb.WriteByte(' ')
		}
		sb.WriteString(w)
	}
	return sb.String()
}

// writeSentence writes 8–20 random words with an occasional comma, a capital and a
// final full stop (sometimes a question or exclamation mark).
func writeSentence(sb *strings.Builder, r *rand.Rand, words []string) {
	n := 8 + r.IntN(13)
	for i := range n {
		w := words[r.IntN(len(words))]
		if i == 0 {
			w = capitalize(w)
		}
		sb.WriteString(w)
		switch {
		case i == n-1:
			sb.WriteByte(sentenceEnd(r))
		case i > 1 && i < n-3 && r.IntN(12) == 0:
			sb.WriteString(", ")
		default:
			sb.WriteByte(' ')
		}
	}
}

// sentenceEnd returns '.' or, one time in twenty, '?' or '!'.
func sentenceEnd(r *rand.Rand) byte {
	switch r.IntN(40) {
	case 0:
		return '?'
	case 1:
		return '!'
	}
	return '.'
}

// paragraph returns 3–7 sentences.
func paragraph(r *rand.Rand, words []string) string {
	var sb strings.Builder
	for i := range 3 + r.IntN(5) {
		if i > 0 {
			sb.WriteByte(' ')
		}
		writeSentence(&sb, r, words)
	}
	return sb.String()
}

// newArticle writes a synthetic original from r.
func (g *Generator) newArticle(r *rand.Rand) *article {
	a := &article{lang: "en"}
	if r.Float64() < g.o.Russian {
		a.lang = "ru"
	}
	words := g.words(a.lang)
	a.title = title(r, words, 5, 10)
	a.date = randomDate(r)
	a.section = r.IntN(len(g.sections))
	lo, hi := g.o.Paragraphs[0], g.o.Paragraphs[1]
	for range lo + r.IntN(hi-lo+1) {
		a.paras = append(a.paras, paragraph(r, words))
	}
	return a
}

// randomDate returns a day in 2019–2024.
func randomDate(r *rand.Rand) time.Time {
	return time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(6*365))
}

// edit makes round(rate·n) word edits at distinct positions of the n words (at least
// one when rate > 0): 70% substitute a word from vocab, 15% delete, 15% insert.
func edit(r *rand.Rand, paras []string, rate float64, vocab []string) []string {
	n := 0
	for _, p := range paras {
		n += len(strings.Fields(p))
	}
	k := int(math.Round(rate * float64(n)))
	if k == 0 && rate > 0 && n > 0 {
		k = 1
	}
	marked := make([]bool, n)
	for _, i := range r.Perm(n)[:k] {
		marked[i] = true
	}
	out := make([]string, 0, len(paras))
	idx := 0
	for _, p := range paras {
		var kept []string
		for _, w := range strings.Fields(p) {
			if marked[idx] {
				kept = editWord(r, kept, w, vocab)
			} else {
				kept = append(kept, w)
			}
			idx++
		}
		if len(kept) > 0 {
			out = append(out, strings.Join(kept, " "))
		}
	}
	return out
}

// editWord appends the edited form of w to kept.
func editWord(r *rand.Rand, kept []string, w string, vocab []string) []string {
	switch op := r.IntN(20); {
	case op < 14:
		return append(kept, substitute(r, w, vocab))
	case op < 17:
		return kept
	default:
		return append(kept, vocab[r.IntN(len(vocab))], w)
	}
}

// substitute returns another word in w's place, keeping its capital and punctuation.
func substitute(r *rand.Rand, w string, vocab []string) string {
	core := strings.TrimRightFunc(w, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
	tail := w[len(core):]
	for {
		nw := vocab[r.IntN(len(vocab))]
		if strings.EqualFold(nw, core) {
			continue
		}
		if first, _ := utf8.DecodeRuneInString(core); unicode.IsUpper(first) {
			nw = capitalize(nw)
		}
		return nw + tail
	}
}

// truncate keeps the first ⌈frac·n⌉ of the n words (but drops at least one word),
// paragraph structure included.
func truncate(paras []string, frac float64) []string {
	n := 0
	for _, p := range paras {
		n += len(strings.Fields(p))
	}
	keep := min(int(math.Ceil(frac*float64(n))), n-1)
	var out []string
	for _, p := range paras {
		if keep <= 0 {
			break
		}
		ws := strings.Fields(p)
		if len(ws) > keep {
			ws = ws[:keep]
		}
		keep -= len(ws)
		out = append(out, strings.Join(ws, " "))
	}
	return out
}

// reorder returns the paragraphs in a different order (when there are two or more).
func reorder(r *rand.Rand, paras []string) []string {
	out := make([]string, len(paras))
	perm := r.Perm(len(paras))
	moved := false
	for i, j := range perm {
		out[i] = paras[j]
		moved = moved || i != j
	}
	if !moved && len(out) > 1 {
		out = append(out[1:], out[0])
	}
	return out
}
