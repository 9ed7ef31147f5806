package gen

import (
	"math/rand/v2"
	"strings"
	"unicode"
)

// quoting returns a new article, about twice as long as a and in its language,
// that quotes a whole (title and every paragraph) between two of its own
// paragraphs.
func (g *Generator) quoting(r *rand.Rand, a *article) article {
	words := g.words(a.lang)
	host := article{lang: a.lang, title: title(r, words, 5, 10), date: a.date.AddDate(0, 0, 1+r.IntN(30)),
		section: r.IntN(len(g.sections)), quote: a}
	for range max(2, 2*len(a.paras)) {
		host.paras = append(host.paras, paragraph(r, words))
	}
	host.quoteAt = 1 + r.IntN(len(host.paras)-1)
	return host
}

// excerpt returns a contiguous run of about a third of paras (at least one), starting
// at any paragraph.
func excerpt(r *rand.Rand, paras []string) []string {
	n := max(1, (len(paras)+2)/3)
	i := r.IntN(len(paras) - n + 1)
	return paras[i : i+n]
}

// noiseAll applies noise to every paragraph.
func noiseAll(r *rand.Rand, paras []string) []string {
	out := make([]string, len(paras))
	for i, p := range paras {
		out[i] = noise(r, p)
	}
	return out
}

// noise changes the case of some words and the punctuation between some words,
// and doubles some spaces. Letters and digits stay where they are, so a cleaner
// that folds case and treats punctuation as a separator sees the same words.
func noise(r *rand.Rand, text string) string {
	var sb strings.Builder
	for i, w := range strings.Fields(text) {
		if i > 0 {
			sb.WriteString(separator(r))
		}
		if r.IntN(6) == 0 {
			w = recase(r, w)
		}
		if r.IntN(8) == 0 {
			w = strings.TrimRightFunc(w, isPunct) + []string{"", ",", ";", ":", "!", "...", "?!"}[r.IntN(7)]
		}
		if r.IntN(25) == 0 {
			q := [][2]string{{`"`, `"`}, {"«", "»"}, {"(", ")"}}[r.IntN(3)]
			w = q[0] + w + q[1]
		}
		sb.WriteString(w)
	}
	return sb.String()
}

// separator returns a space, now and then two, or a dash between spaces.
func separator(r *rand.Rand) string {
	switch r.IntN(16) {
	case 0:
		return "  "
	case 1:
		return " - "
	case 2:
		return " — "
	}
	return " "
}

// recase returns w in upper case, lower case or with a capital.
func recase(r *rand.Rand, w string) string {
	switch r.IntN(3) {
	case 0:
		return strings.ToUpper(w)
	case 1:
		return strings.ToLower(w)
	}
	return capitalize(strings.ToLower(w))
}

func isPunct(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }

// plainText renders an article as a text page: the title, then the paragraphs,
// separated by blank lines.
func plainText(a *article) string {
	var sb strings.Builder
	sb.WriteString(a.title)
	for _, p := range a.paras {
		sb.WriteString("\n\n")
		sb.WriteString(p)
	}
	sb.WriteByte('\n')
	a.run.writeText(&sb)
	return sb.String()
}
