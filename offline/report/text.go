package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/dedupstream/dedupstream/offline"
)

// WriteText writes a terminal summary of one clustering: its size histogram,
// in the bins of the report (1, 2, 3–4, 5–8, …), and its top largest
// clusters with their earliest document. It needs no state.
func WriteText(w io.Writer, res *offline.Result, top int) {
	sizes := res.Clustering.Sizes()
	largest := 1
	for _, n := range sizes {
		largest = max(largest, int(n))
	}
	bins := newBins(largest)
	for _, n := range sizes {
		b := &bins[binOf(int(n))]
		b.Clusters++
		b.Documents += int(n)
	}
	fmt.Fprintln(w, "cluster sizes:")
	for _, b := range bins {
		fmt.Fprintf(w, "  %-8s %8d\n", binName(b), b.Clusters)
	}
	writeTop(w, res, sizes, top)
}

func writeTop(w io.Writer, res *offline.Result, sizes []int32, top int) {
	labels := make([]int, len(sizes))
	for i := range labels {
		labels[i] = i
	}
	sort.SliceStable(labels, func(a, b int) bool { return sizes[labels[a]] > sizes[labels[b]] })
	first := make(map[int32]int) // label → earliest node
	for node := len(res.Seqs) - 1; node >= 0; node-- {
		first[res.Clustering.Labels[node]] = node
	}
	fmt.Fprintf(w, "largest clusters (size, cluster id, earliest document, URL):\n")
	for _, l := range labels[:min(top, len(labels))] {
		n := first[int32(l)]
		fmt.Fprintf(w, "  %6d  %-8d %s %s\n", sizes[l], res.ClusterIDs[l], res.IDs[n], res.URLs[n])
	}
}
