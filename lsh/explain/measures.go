package explain

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/measure"
	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// Doc is one side of a comparison: the cleaned text of a file, or the
// stored sketch of a document (whose text is not kept).
type Doc struct {
	Name   string
	Text   []byte // cleaned text; nil for a stored document
	Sketch []byte // sketch of the configured method; for a file, set only where it was sketched
}

// WriteExact writes the exact measures of two cleaned texts a and b, with
// shingling sh; the tf-idf cosine needs vocab.
func WriteExact(w io.Writer, sh lsh.Shingling, vocab *vocab.Vocabulary, a, b []byte) {
	sa, sb := lsh.SortedSet(sh.Append(nil, a)), lsh.SortedSet(sh.Append(nil, b))
	o := lsh.OverlapOf(sa, sb)
	wa, wb := lsh.AppendWords(nil, a), lsh.AppendWords(nil, b)
	edit := measure.EditSimilarity(wa, wb) // before TermFrequencies sorts the words
	ta, tb := measure.TermFrequencies(nil, wa), measure.TermFrequencies(nil, wb)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "exact (shingles %s: A %d, B %d, shared %d; words A %d, B %d)\n", sh.Version(), o.SizeA, o.SizeB, o.Inter, len(wa), len(wb))
	fmt.Fprintf(tw, "  resemblance\t%.3f\n", o.Resemblance())
	fmt.Fprintf(tw, "  containment A in B\t%.3f\n", o.AinB())
	fmt.Fprintf(tw, "  containment B in A\t%.3f\n", o.BinA())
	fmt.Fprintf(tw, "  weighted Jaccard (word tf)\t%.3f\n", measure.WeightedJaccard(ta, tb))
	if vocab != nil {
		fmt.Fprintf(tw, "  tf-idf cosine\t%.3f\n", measure.Cosine(measure.TFIDF(vocab, ta), measure.TFIDF(vocab, tb)))
	} else {
		fmt.Fprintf(tw, "  tf-idf cosine\t- (needs --vocab)\n")
	}
	fmt.Fprintf(tw, "  edit similarity (words)\t%.3f\n", edit)
	tw.Flush()
}

// WriteEstimates sketches both texts with every method and prints what each
// one's Compare says. The configured method is used as configured; the others
// share its shingling, threshold and seed, with their own defaults.
func WriteEstimates(w io.Writer, configured lsh.Config, vocab *vocab.Vocabulary, a, b []byte) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tversion\tresemblance\tA in B\tB in A\tdistance\tnear")
	for _, name := range lsh.MethodNames() {
		c := configured.ForMethod(name)
		if vocab == nil && (name == lsh.MethodIMatch || c.SimHash.IDF) {
			fmt.Fprintf(tw, "%s\t-\t(needs --vocab)\n", name)
			continue
		}
		m, err := lsh.NewMethod(c, vocab)
		if err != nil {
			return fmt.Errorf("method %s: %w", name, err)
		}
		var sc lsh.Scratch
		ska, _ := m.Sketch(&sc, a, nil, nil)
		skb, _ := m.Sketch(&sc, b, nil, nil)
		est, err := m.Compare(ska, skb)
		if err != nil {
			return fmt.Errorf("method %s: %w", name, err)
		}
		mark := ""
		if name == configured.Method {
			mark = " *"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\n", name, mark, m.Version(), estimateColumns(est))
	}
	fmt.Fprintln(tw, "(* configured; near: the method's own verdict at its threshold or distance; few: too few sampled shingles of that page to estimate its containment)")
	return tw.Flush()
}

// WriteStored compares two stored sketches, or a file with a stored sketch,
// with the configured method m, which produced the stored ones.
func WriteStored(w io.Writer, m lsh.Method, docs []Doc) error {
	var sks [2][]byte
	for i, d := range docs {
		sks[i] = d.Sketch
		if d.Text != nil {
			sks[i], _ = m.Sketch(&lsh.Scratch{}, d.Text, nil, nil)
		}
	}
	est, err := m.Compare(sks[0], sks[1])
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tversion\tresemblance\tA in B\tB in A\tdistance\tnear")
	fmt.Fprintf(tw, "%s *\t%s\t%s\n", m.Name(), m.Version(), estimateColumns(est))
	return tw.Flush()
}

func estimateColumns(e lsh.Estimate) string {
	ain, bin, dist := "-", "-", "-"
	if e.Containment {
		ain, bin = containmentColumn(e.AinB), containmentColumn(e.BinA)
	}
	if e.Distance >= 0 {
		dist = strconv.Itoa(e.Distance)
	}
	near := "no"
	if e.Near {
		near = "yes"
	}
	return fmt.Sprintf("%.3f\t%s\t%s\t%s\t%s", e.Resemblance, ain, bin, dist, near)
}

// containmentColumn formats a containment estimate, "few" when the method
// withheld it (NaN: too few sampled shingles of that page).
func containmentColumn(c float64) string {
	if math.IsNaN(c) {
		return "few"
	}
	return strconv.FormatFloat(c, 'f', 3, 64)
}
