package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/offline/report"
)

// TestWriteText: clusters of sizes 3, 1, 2 and 1 fall into the report's bins
// (1, 2, 3–4), and the largest are listed first with their earliest document.
func TestWriteText(t *testing.T) {
	res := &offline.Result{
		Seqs:       []uint64{1, 2, 3, 4, 5, 6, 7},
		IDs:        []string{"a", "b", "c", "d", "e", "f", "g"},
		URLs:       []string{"u/a", "u/b", "u/c", "u/d", "u/e", "u/f", "u/g"},
		Clustering: cluster.Clustering{Labels: []int32{0, 1, 0, 2, 0, 3, 2}, K: 4},
		ClusterIDs: []uint64{1, 2, 4, 6},
	}
	var b bytes.Buffer
	report.WriteText(&b, res, 2)
	want := "cluster sizes:\n" +
		"  1               2\n" +
		"  2               1\n" +
		"  3–4             1\n" +
		"largest clusters (size, cluster id, earliest document, URL):\n" +
		"       3  1        a u/a\n" +
		"       2  4        d u/d\n"
	if got := b.String(); got != want {
		t.Errorf("WriteText:\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(b.String(), "b u/b") {
		t.Error("listed more than top clusters")
	}
}
