package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dedupstream/dedupstream/offline"
)

// WriteClusters writes the totals of a re-clustering by algo, then its size
// histogram and its top largest clusters with their earliest document
// (WriteText).
func WriteClusters(w io.Writer, res *offline.Result, algo string, top int) {
	if res.Graph != nil {
		fmt.Fprintf(w, "%s: %d documents, %d verified pairs, %d clusters in %s\n",
			algo, len(res.Seqs), res.Graph.M(), res.Clustering.K, res.Elapsed.Round(1e6))
	} else {
		fmt.Fprintf(w, "%s: %d documents, %d clusters in %s\n", algo, len(res.Seqs), res.Clustering.K, res.Elapsed.Round(1e6))
	}
	if res.Capped > 0 {
		fmt.Fprintf(w, "%d candidate lookups were cut by state.max_bucket or state.max_candidates (at least 1000 here)\n", res.Capped)
	}
	WriteText(w, res, top)
}

// WriteSummary writes one line of totals per threshold and where in dir
// WriteDir put the files.
func (r *Report) WriteSummary(w io.Writer, dir string) {
	fmt.Fprintf(w, "%s: %d documents\n", r.Algorithm, r.Documents)
	fmt.Fprintf(w, "  %-9s %8s %8s %10s %10s %7s\n", "threshold", "pairs", "clusters", "singletons", "duplicates", "largest")
	for _, l := range r.Levels {
		t := l.Totals
		fmt.Fprintf(w, "  %-9g %8d %8d %10d %10d %7d\n", l.Threshold, t.Pairs, t.Clusters, t.Singletons, t.Duplicates, t.Largest)
	}
	fmt.Fprintf(w, "wrote %s (and %s, %s, %s, %s)\n", filepath.Join(dir, FileHTML),
		FileSVG, FilePNG, FileJSON, FileCSV)
}

// ParseThresholds reads a comma-separated list of thresholds in (0, 1], in
// the order given.
func ParseThresholds(s string) ([]float64, error) {
	var ts []float64
	for f := range strings.SplitSeq(s, ",") {
		t, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(t > 0 && t <= 1) {
			return nil, fmt.Errorf("--thresholds %q: %q is not a number in (0, 1]", s, f)
		}
		ts = append(ts, t)
	}
	return ts, nil
}
