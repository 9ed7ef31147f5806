package eval

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
)

// CopyPair is one generated near-copy and its origin with the exact overlap of their
// word-5-shingle sets (A is the copy, B the origin).
type CopyPair struct {
	Copy, Origin string
	Kind         gen.Kind
	lsh.Overlap
}

// Exact returns, for every page that is not an Original, the exact overlap of its
// cleaned text with its origin's, in page order. sets[i] must be the sorted shingle
// set of pages[i] (Sets of CleanPages). A page whose origin is not among pages is an
// error.
func Exact(pages []gen.Page, sets [][]uint64) ([]CopyPair, error) {
	if len(pages) != len(sets) {
		return nil, fmt.Errorf("eval: %d pages but %d sets", len(pages), len(sets))
	}
	at := make(map[string]int, len(pages))
	for i, p := range pages {
		at[p.ID] = i
	}
	var out []CopyPair
	for i, p := range pages {
		if p.Kind == gen.Original {
			continue
		}
		j, ok := at[p.Origin]
		if !ok {
			return nil, fmt.Errorf("eval: page %s: origin %s not generated", p.ID, p.Origin)
		}
		out = append(out, CopyPair{Copy: p.ID, Origin: p.Origin, Kind: p.Kind, Overlap: lsh.OverlapOf(sets[i], sets[j])})
	}
	return out, nil
}

// WriteTruth writes the ground-truth clustering as id<TAB>cluster lines, the cluster
// being the origin's id (quality.ReadClustering with FormatLabels reads it).
func WriteTruth(w io.Writer, pages []gen.Page) error {
	bw := bufio.NewWriter(w)
	for _, p := range pages {
		bw.WriteString(p.ID)
		bw.WriteByte('\t')
		bw.WriteString(p.Origin)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteCopyPairs writes pairs as a tab-separated table with a header line: copy,
// origin, kind, exact resemblance, containment of the copy in the origin and of the
// origin in the copy, and the shingle counts.
func WriteCopyPairs(w io.Writer, pairs []CopyPair) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("copy\torigin\tkind\tresemblance\tcopy_in_origin\torigin_in_copy\tcommon\tcopy_shingles\torigin_shingles\n")
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	for _, p := range pairs {
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", p.Copy, p.Origin, p.Kind,
			f(p.Resemblance()), f(p.AinB()), f(p.BinA()), p.Inter, p.SizeA, p.SizeB)
	}
	return bw.Flush()
}
