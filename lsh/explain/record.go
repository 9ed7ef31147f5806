package explain

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dedupstream/dedupstream/lsh"
)

// WriteRecordComparison writes each field's similarity in c, with the
// fields of the two records' texts (none for stored ones), and the weighted
// verdict at minFields and threshold.
func WriteRecordComparison(w io.Writer, c lsh.RecordComparison, docs []Doc, minFields int, threshold float64) {
	fields := [2][]string{recordFields(docs[0].Text), recordFields(docs[1].Text)}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "field\tkind\tweight\tsimilarity\tA (normalised)\tB (normalised)")
	for i, f := range c.Fields {
		sim := "missing in " + missingSide(f)
		if f.Comparable() {
			sim = fmt.Sprintf("%.3f", f.Similarity)
		}
		fmt.Fprintf(tw, "%s\t%s\t%g\t%s\t%s\t%s\n", f.Name, f.Kind, f.Weight, sim, field(fields[0], i), field(fields[1], i))
	}
	tw.Flush()
	verdict := "not a duplicate"
	if c.Near {
		verdict = "near-duplicate"
	}
	fmt.Fprintf(w, "\nweighted similarity %.3f over %d comparable fields (min_fields %d, threshold %g): %s\n",
		c.Similarity, c.Comparable, minFields, threshold, verdict)
}

func missingSide(f lsh.FieldSimilarity) string {
	switch {
	case !f.InA && !f.InB:
		return "both"
	case !f.InA:
		return "A"
	}
	return "B"
}

// recordFields splits a record text for display (lsh.SplitRecordText), the
// items of a field joined by "; "; nil for a stored record.
func recordFields(text []byte) []string {
	if text == nil {
		return nil
	}
	var fs []string
	for _, items := range lsh.SplitRecordText(text) {
		fs = append(fs, strings.Join(items, "; "))
	}
	return fs
}

func field(fs []string, i int) string {
	switch {
	case fs == nil:
		return "(stored: sketch only)"
	case i >= len(fs) || fs[i] == "":
		return "-"
	}
	const max = 40
	if r := []rune(fs[i]); len(r) > max {
		return string(r[:max]) + "…"
	}
	return fs[i]
}
