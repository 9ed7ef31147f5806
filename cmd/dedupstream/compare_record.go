package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dedupstream/dedupstream/lsh"
)

// compareRecords is compare in record mode: A and B are files holding one
// JSON record each, or ids or URLs of records in --state; it prints each
// field's similarity and the weighted verdict.
func compareRecords(stdout io.Writer, cfg Config, m *lsh.RecordMethod, a, b string) error {
	prepared := prepareFile(cfg, m)
	record := func(v []byte) (text, sketch []byte, err error) { return prepared(bytes.TrimSpace(v)) }
	docs, err := compareDocs(cfg, m, record, a, b)
	if err != nil {
		return err
	}
	c, err := m.CompareFields(docs[0].sketch, docs[1].sketch)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "A: %s\nB: %s\nsketch: %s\n\n", docs[0].name, docs[1].name, m.Version())
	printRecordComparison(stdout, c, docs, m.MinFields(), cfg.Sketch.Params.Threshold)
	return nil
}

func printRecordComparison(w io.Writer, c lsh.RecordComparison, docs []compareDoc, minFields int, threshold float64) {
	fields := [2][]string{recordFields(docs[0].text), recordFields(docs[1].text)}
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
