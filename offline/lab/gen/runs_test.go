package gen

import (
	"strings"
	"testing"
)

// TestRuns: with Options.Runs a share of pages ends in a run of one repeated token, and
// nothing else of the seed's pages changes: without the run each page is the page the
// same seed gives without Runs.
func TestRuns(t *testing.T) {
	const n = 1000
	plain := pages(Options{Seed: 7, Kinds: AllKinds()}, n)
	with := pages(Options{Seed: 7, Kinds: AllKinds(), Runs: 0.4}, n)
	runs, tables := 0, 0
	for i, p := range with {
		q := plain[i]
		if p.ID != q.ID || p.Kind != q.Kind || p.Origin != q.Origin || p.URL != q.URL {
			t.Fatalf("page %d: %s %s of %s with runs, %s %s of %s without", i, p.ID, p.Kind, p.Origin, q.ID, q.Kind, q.Origin)
		}
		if p.HTML == q.HTML {
			continue
		}
		run := inserted(p.HTML, q.HTML)
		switch {
		case strings.Contains(run, "=3D=3D=3D=3D=3D"), strings.Contains(run, "=09=09=09=09=09"):
			runs++
		case strings.Count(run, "<td>") >= 60, strings.Count(run, "\t") >= 30:
			tables++
		default:
			t.Fatalf("%s: inserted %.80q, not a run", p.ID, run)
		}
	}
	// 400 ± 4σ (σ ≈ 15.5) of 1000 pages, two thirds plain runs and one third tables.
	if got := runs + tables; got < 338 || got > 462 || tables < 80 || runs < 180 {
		t.Errorf("%d runs and %d tables in %d pages at Runs 0.4", runs, tables, n)
	}
}

// inserted returns what a holds besides b when a is b with one string inserted.
func inserted(a, b string) string {
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	j := 0
	for j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	if i+j != len(b) {
		return "" // not a single insertion
	}
	return a[i : len(a)-j]
}
