package eval

import (
	"bufio"
	"fmt"
	"io"
)

// WriteMarkdown writes rows as a Markdown table: pair precision, recall and F1 of the
// verified pairs against the true pairs, then the cluster metrics of the found
// clustering against the true one.
func WriteMarkdown(w io.Writer, rows []Row) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "| method | sketch | threshold | verified pairs | true pairs | pair P | pair R | pair F1 | Pr | Re | F1 | CPr | docs/s | sketch B/doc | keys/doc |")
	fmt.Fprintln(bw, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		rate := 0.0
		if s := r.Elapsed.Seconds(); s > 0 {
			rate = float64(r.Scores.Docs) / s
		}
		s := r.Scores
		perDoc := func(n int64) float64 { return float64(n) / float64(max(1, s.Docs)) }
		fmt.Fprintf(bw, "| %s | `%s` | %.2f | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f | %.0f | %.1f |\n",
			r.Method, r.Version, r.Threshold, r.Pairs.Ours, r.Pairs.Theirs, r.Pairs.Precision(), r.Pairs.Recall(), r.Pairs.F1(),
			s.Precision, s.Recall, s.F1, s.CPr, rate, perDoc(r.SketchBytes), perDoc(r.Keys))
	}
	writeContain(bw, rows)
	return bw.Flush()
}

// writeContain writes the contained verdict's table: of the pairs whose later document
// is at least c + 0.05 inside the earlier one (exact), how many the run put together
// (near or contained), and how many of the pairs it called contained are at least
// c − 0.05 inside (see ContainScores).
func writeContain(w io.Writer, rows []Row) {
	if len(rows) == 0 {
		return
	}
	c := rows[0].Contain.Containment
	fmt.Fprintf(w, "\ncontained: later page inside an earlier one at exact containment C (sketch.containment c = %.2f)\n\n", c)
	fmt.Fprintf(w, "| method | sketch | threshold | pairs C≥%.2f | found (near or contained) | recall | contained verdicts | of them C≥%.2f | precision |\n",
		c+containMargin, c-containMargin)
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		k := r.Contain
		fmt.Fprintf(w, "| %s | `%s` | %.2f | %d | %d | %.3f | %d | %d | %.3f |\n",
			r.Method, r.Version, r.Threshold, k.Truth, k.Found, k.Recall(), k.Reported, k.Good, k.Precision())
	}
}
