package eval

import (
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
)

// TestSimHashOnRuns is simhash's tf weighting on generated pages: half of them end in a long run of
// one token (gen Options.Runs). Distinct originals share almost no shingles, so a pair
// across two true clusters is a sketch error. Weighted by term frequency, every two
// pages with the same run (a third of the run pages each) are near whatever their text,
// and pair precision collapses; with the default set weighting it stays where it is on
// the same pages without runs (1.0), and recall falls by no more than the copies whose
// run differs from their origin's explain.
func TestSimHashOnRuns(t *testing.T) {
	o := gen.Options{Seed: 11, EditRate: 0.01}
	plain := CleanPages(generate(600, o))
	o.Runs = 0.5
	runs := CleanPages(generate(600, o))
	labels := labelledTruth(t, generate(600, o))
	score := func(docs []Doc, tf string) Row {
		t.Helper()
		rows, err := Run(docs, labels, Options{Methods: []string{lsh.MethodSimHash},
			Config: lsh.Config{SimHash: lsh.SimHashParams{TF: tf}}})
		if err != nil {
			t.Fatal(err)
		}
		r := rows[0]
		t.Logf("%s: %d verified pairs, pair P %.3f R %.3f", r.Version, r.Pairs.Ours, r.Pairs.Precision(), r.Pairs.Recall())
		return r
	}
	base, set, count := score(plain, lsh.SimHashTFSet), score(runs, lsh.SimHashTFSet), score(runs, lsh.SimHashTFCount)
	if count.Pairs.Precision() > 0.2 {
		t.Errorf("tf count on pages with runs: pair precision %.3f; the test no longer shows the defect", count.Pairs.Precision())
	}
	if set.Pairs.Precision() < 0.99 || base.Pairs.Precision() < 0.99 {
		t.Errorf("tf set: pair precision %.3f with runs, %.3f without; want ≥ 0.99", set.Pairs.Precision(), base.Pairs.Precision())
	}
	if set.Pairs.Recall() < base.Pairs.Recall()-0.1 {
		t.Errorf("tf set: pair recall %.3f with runs, %.3f without", set.Pairs.Recall(), base.Pairs.Recall())
	}
}
