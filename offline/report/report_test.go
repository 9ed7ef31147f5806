package report_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/report"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

var thresholds = []float64{0.5, 0.6, 0.7, 0.8, 0.9}

// TestReport streams generated pages through the filter, re-clusters the state
// at the lowest threshold, builds the report for five thresholds and checks
// it and every file written against the clustering it came from.
func TestReport(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	var params lsh.Params
	params.EnsureDefaults()
	generatedState(t, 300, dir, params)
	st, err := state.Open(state.Options{Dir: dir, MaxCandidates: 1000, MaxBucket: 1000, SketchVersion: streamtest.MinHash(t, params).Version()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res := recluster(t, st, params, thresholds[0])
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	levels := 0
	r, err := report.Build(context.Background(), st, res, report.Options{
		Thresholds: thresholds, Algorithm: "star", Sketch: streamtest.MinHash(t, params).Version(),
		Now: func() time.Time { return created }, Progress: func(n int) { levels = n },
	})
	if err != nil {
		t.Fatal(err)
	}
	if levels != len(thresholds) || r.Top != 10 || !r.Created.Equal(created) {
		t.Errorf("progress %d levels, top %d, created %v", levels, r.Top, r.Created)
	}
	checkLevels(t, r, res)
	checkSameAsRecluster(t, st, params, r, 3)
	if err := r.WriteDir(out); err != nil {
		t.Fatal(err)
	}
	checkJSON(t, r, out)
	checkCSV(t, r, out)
	checkHTML(t, r, out)
}

func recluster(t *testing.T, st *state.Store, params lsh.Params, threshold float64) *offline.Result {
	t.Helper()
	res, err := offline.Recluster(context.Background(), st, lsh.NewSketcher(params), offline.Options{Algorithm: "star", Threshold: threshold})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkLevels: every level partitions the documents; totals and histogram
// agree with the clusters; each cluster is named by and represented by its
// earliest document; pairs fall as the threshold rises; there are copies to find.
func checkLevels(t *testing.T, r *report.Report, res *offline.Result) {
	t.Helper()
	seq := make(map[string]uint64)
	for node, id := range res.IDs {
		seq[id] = res.Seqs[node]
	}
	if r.Documents != len(res.IDs) || len(r.Levels) != len(thresholds) {
		t.Fatalf("%d documents, %d levels", r.Documents, len(r.Levels))
	}
	if l := r.Levels[0]; l.Totals.Clusters != res.Clustering.K || l.Totals.Pairs != res.Graph.M() {
		t.Errorf("level 0: %+v, recluster %d clusters %d pairs", l.Totals, res.Clustering.K, res.Graph.M())
	}
	for i, l := range r.Levels {
		seen := make(map[string]bool)
		singles := 0
		for k, c := range l.Clusters {
			if k > 0 && (c.Size > l.Clusters[k-1].Size || c.Size == l.Clusters[k-1].Size && c.ID < l.Clusters[k-1].ID) {
				t.Fatalf("t %v: clusters out of order at %d", l.Threshold, k)
			}
			if c.Size != len(c.Members) || c.ID != seq[c.Members[0]] || c.Representative.Seq != c.ID ||
				c.Representative.ID != c.Members[0] || c.Representative.URL == "" || c.Representative.Time == nil {
				t.Fatalf("t %v: cluster %+v", l.Threshold, c)
			}
			for k, m := range c.Members {
				if seen[m] || (k > 0 && seq[m] <= seq[c.Members[k-1]]) {
					t.Fatalf("t %v: member %s repeated or out of arrival order", l.Threshold, m)
				}
				seen[m] = true
			}
			if c.Size == 1 {
				singles++
			}
		}
		tot := l.Totals
		if len(seen) != r.Documents || tot.Clusters != len(l.Clusters) || tot.Singletons != singles ||
			tot.Duplicates != r.Documents-tot.Clusters || tot.Largest != l.Clusters[0].Size {
			t.Errorf("t %v: %d documents seen, totals %+v", l.Threshold, len(seen), tot)
		}
		checkHistogram(t, l, r.Documents)
		if i > 0 && tot.Pairs > r.Levels[i-1].Totals.Pairs {
			t.Errorf("t %v: %d pairs, more than %d at %v", l.Threshold, tot.Pairs, r.Levels[i-1].Totals.Pairs, r.Levels[i-1].Threshold)
		}
		t.Logf("t %.1f: %+v", l.Threshold, tot)
	}
	// ~40% of the pages are mirrors, exact or 1%-edited copies (resemblance ≥ 0.9).
	if d := r.Levels[len(r.Levels)-1].Totals.Duplicates; d < r.Documents/5 {
		t.Errorf("%d duplicates at the highest threshold, want at least %d", d, r.Documents/5)
	}
}

// checkHistogram: the bins cover the sizes 1, 2, 3–4, … without gaps, and their
// counts are those of the cluster sizes.
func checkHistogram(t *testing.T, l report.Level, docs int) {
	t.Helper()
	want := make([]report.Bin, len(l.Histogram))
	for k, b := range l.Histogram {
		want[k] = report.Bin{Min: b.Min, Max: b.Max}
		if (k == 0 && b.Min != 1) || (k > 0 && b.Min != l.Histogram[k-1].Max+1) || b.Max < b.Min {
			t.Fatalf("t %v: bins %+v", l.Threshold, l.Histogram)
		}
	}
	for _, c := range l.Clusters {
		k := slices.IndexFunc(want, func(b report.Bin) bool { return b.Min <= c.Size && c.Size <= b.Max })
		if k < 0 {
			t.Fatalf("t %v: no bin for size %d in %+v", l.Threshold, c.Size, l.Histogram)
		}
		want[k].Clusters++
		want[k].Documents += c.Size
	}
	if !slices.Equal(l.Histogram, want) {
		t.Errorf("t %v: histogram %+v, want %+v", l.Threshold, l.Histogram, want)
	}
}

// checkSameAsRecluster: the level made by filtering the lowest threshold's
// graph is the clustering a re-clustering at its own threshold gives.
func checkSameAsRecluster(t *testing.T, st *state.Store, params lsh.Params, r *report.Report, level int) {
	t.Helper()
	l := r.Levels[level]
	res := recluster(t, st, params, l.Threshold)
	got := make([][]string, len(l.Clusters))
	for k, c := range l.Clusters {
		got[k] = c.Members
	}
	var want [][]string
	for _, nodes := range res.Clustering.Clusters() {
		ids := make([]string, len(nodes))
		for k, n := range nodes {
			ids[k] = res.IDs[n]
		}
		want = append(want, ids)
	}
	key := func(a, b []string) int { return strings.Compare(a[0], b[0]) }
	slices.SortFunc(got, key)
	slices.SortFunc(want, key)
	if !reflect.DeepEqual(got, want) || l.Totals.Pairs != res.Graph.M() {
		t.Errorf("t %v: filtered graph gives %d clusters, %d pairs; re-clustering %d, %d",
			l.Threshold, len(got), l.Totals.Pairs, len(want), res.Graph.M())
	}
}

// checkJSON: clusters.json reads back into the same Report.
func checkJSON(t *testing.T, r *report.Report, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.FileJSON))
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("clusters.json does not read back to the report")
	}
}

// checkCSV: one row per document and threshold, each cluster's rows as many
// as its size, with one first row, its rank and size as the report has them.
func checkCSV(t *testing.T, r *report.Report, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, report.FileCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+r.Documents*len(r.Levels) || !slices.Equal(rows[0], report.CSVHeader) {
		t.Fatalf("%d rows, header %v; want %d", len(rows), rows[0], 1+r.Documents*len(r.Levels))
	}
	type key struct{ threshold, cluster string }
	count, firsts, meta := make(map[key]int), make(map[key]int), make(map[key]string)
	for _, row := range rows[1:] {
		k := key{row[0], row[1]}
		count[k]++
		if row[5] == "1" {
			firsts[k]++
		}
		meta[k] = row[2] + "/" + row[3]
	}
	for _, l := range r.Levels {
		for rank, c := range l.Clusters {
			k := key{fmt.Sprint(l.Threshold), fmt.Sprint(c.ID)}
			if count[k] != c.Size || firsts[k] != 1 || meta[k] != fmt.Sprintf("%d/%d", c.Size, rank+1) {
				t.Fatalf("t %v cluster %d (size %d, rank %d): %d rows, %d first, size/rank %s",
					l.Threshold, c.ID, c.Size, rank+1, count[k], firsts[k], meta[k])
			}
		}
	}
}

// checkHTML: report.html embeds histogram.svg and lists each level's ten
// largest clusters with their earliest document and URL, and the totals.
func checkHTML(t *testing.T, r *report.Report, dir string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, report.FileHTML))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, report.FileSVG))
	if err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join(dir, report.FilePNG))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("figure files: png %q…, svg %d bytes", png[:min(8, len(png))], len(svg))
	}
	html := string(page)
	m := regexp.MustCompile(`<img src="([^"]*)"`).FindStringSubmatch(html)
	if want := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg); m == nil || stdhtml.UnescapeString(m[1]) != want {
		t.Error("report.html does not embed histogram.svg")
	}
	if n := strings.Count(html, `<table class="top">`); n != len(r.Levels) {
		t.Errorf("%d top tables, want %d", n, len(r.Levels))
	}
	for _, l := range r.Levels {
		section := html[strings.Index(html, fmt.Sprintf(`<h2 id="top-%v">`, l.Threshold)):]
		section = section[:strings.Index(section, "</table>")]
		if rows := strings.Count(section, "<tr>") - 1; rows != min(10, len(l.Clusters)) {
			t.Errorf("t %v: %d rows in the top table", l.Threshold, rows)
		}
		for _, c := range l.Clusters[:min(10, len(l.Clusters))] {
			cell := fmt.Sprintf(`<td class="n">%d</td><td class="n">%d</td><td>%s</td><td><a href="%s">`, c.Size, c.ID, c.Representative.ID, c.Representative.URL)
			if !strings.Contains(section, cell) {
				t.Errorf("t %v: top table lacks %s", l.Threshold, cell)
			}
		}
		tot := fmt.Sprintf(`<td class="n">%v</td><td class="n">%d</td><td class="n">%d</td>`, l.Threshold, l.Totals.Pairs, l.Totals.Clusters)
		if !strings.Contains(html, tot) {
			t.Errorf("totals lack %s", tot)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	f := func(o report.Options, ok bool) {
		t.Helper()
		if err := o.Validate(); (err == nil) != ok {
			t.Errorf("%+v: %v", o, err)
		}
	}
	f(report.Options{Thresholds: []float64{0.5, 0.9}, Algorithm: "star"}, true)
	f(report.Options{Thresholds: []float64{1}, Algorithm: "components"}, true)
	f(report.Options{Algorithm: "star"}, false)
	f(report.Options{Thresholds: []float64{0.9, 0.5}, Algorithm: "star"}, false)
	f(report.Options{Thresholds: []float64{0.5, 0.5}, Algorithm: "star"}, false)
	f(report.Options{Thresholds: []float64{0}, Algorithm: "star"}, false)
	f(report.Options{Thresholds: []float64{1.5}, Algorithm: "star"}, false)
	f(report.Options{Thresholds: []float64{0.5}, Algorithm: "nosuch"}, false)
	f(report.Options{Thresholds: []float64{0.5}, Algorithm: "star", Top: -1}, false)
}
