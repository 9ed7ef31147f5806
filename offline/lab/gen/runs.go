package gen

import (
	"math/rand/v2"
	"strings"
)

// runSalt separates the streams that draw runs (Options.Runs) from the pages'.
const runSalt = 0x72756e7321212121

// tokenRun is a long run of one repeated token, the kind of text that mail and crawled
// pages carry besides their prose: a quoted-printable line of "=3D" (an encoded "=") or
// "=09" (a tab) a few hundred times over, or a table of identical cells. Cleaned, each
// is one word (or two) repeated, so one 5-word shingle hundreds of times.
type tokenRun struct {
	token string
	n     int // repeats, or rows of a table
	cells int // cells per row of a table; 0: a plain run
}

// run returns the run of page number num: none unless a coin of its own stream comes up
// with probability Options.Runs.
func (g *Generator) run(num int) tokenRun {
	if g.o.Runs == 0 {
		return tokenRun{}
	}
	r := rand.New(rand.NewPCG(g.o.Seed^runSalt, splitmix64(uint64(num))))
	if r.Float64() >= g.o.Runs {
		return tokenRun{}
	}
	switch r.IntN(3) {
	case 0:
		return tokenRun{token: "=3D", n: 100 + r.IntN(301)}
	case 1:
		return tokenRun{token: "=09", n: 100 + r.IntN(301)}
	}
	return tokenRun{token: []string{"n/a", "0", "none", "yes"}[r.IntN(4)], n: 30 + r.IntN(91), cells: 2 + r.IntN(4)}
}

// writeHTML writes the run as a paragraph, or a table, after an article's paragraphs.
func (t tokenRun) writeHTML(sb *strings.Builder) {
	switch {
	case t.n == 0:
	case t.cells == 0:
		sb.WriteString("<p>")
		sb.WriteString(strings.Repeat(t.token, t.n))
		sb.WriteString("</p>\n")
	default:
		row := "<tr>" + strings.Repeat("<td>"+t.token+"</td>", t.cells) + "</tr>\n"
		sb.WriteString("<table>\n")
		sb.WriteString(strings.Repeat(row, t.n))
		sb.WriteString("</table>\n")
	}
}

// writeText writes the run as plain text: one line, or a row of cells per line.
func (t tokenRun) writeText(sb *strings.Builder) {
	switch {
	case t.n == 0:
	case t.cells == 0:
		sb.WriteString(strings.Repeat(t.token, t.n))
		sb.WriteByte('\n')
	default:
		row := strings.Repeat(t.token+"\t", t.cells-1) + t.token + "\n"
		sb.WriteString(strings.Repeat(row, t.n))
	}
}
