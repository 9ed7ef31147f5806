package quality

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// near reports whether got is within rounding of want.
func near(got, want float64) bool { return math.Abs(got-want) < 1e-12 }

func mustGroups(t testing.TB, groups ...[]string) *Clustering {
	t.Helper()
	c, err := FromGroups(groups)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkScores(t *testing.T, got, want Scores) {
	t.Helper()
	floats := []struct {
		name      string
		got, want float64
	}{
		{"Precision", got.Precision, want.Precision}, {"Recall", got.Recall, want.Recall},
		{"F1", got.F1, want.F1}, {"CPr", got.CPr, want.CPr},
		{"PairPrecision", got.PairPrecision, want.PairPrecision},
		{"PairRecall", got.PairRecall, want.PairRecall}, {"PairF1", got.PairF1, want.PairF1},
	}
	for _, f := range floats {
		if !near(f.got, f.want) {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	got.Precision, got.Recall, got.F1, got.CPr = 0, 0, 0, 0
	got.PairPrecision, got.PairRecall, got.PairF1 = 0, 0, 0
	want.Precision, want.Recall, want.F1, want.CPr = 0, 0, 0, 0
	want.PairPrecision, want.PairRecall, want.PairF1 = 0, 0, 0
	if got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
}

func TestCompareWorked(t *testing.T) {
	// Truth g1 = {a,b,c,d}, g2 = {e,f}, g3 = {g}; found c1 = {a,b,e}, c2 = {c,d},
	// c3 = {f,g}; |R| = 7.
	// g1 meets c1 and c2 in 2 documents each: the tie goes to the smaller, f(g1) = c2.
	// g2 meets c1 and c3 in 1 each: f(g2) = c3 (2 < 3). g3 meets only c3: f(g3) = c3.
	//   Pr = 4/7·2/2 + 2/7·1/2 + 1/7·1/2 = 11/14
	//   Re = (2 + 1 + 1)/7 = 4/7
	//   F1 = 2·(11/14)·(4/7) / (11/14 + 4/7) = 88/133
	// Pairs: true C(4,2)+C(2,2) = 7; found C(3,2)+1+1 = 5; common: a-b, c-d = 2.
	//   pair precision 2/5, recall 2/7, F1 2·(2/5)(2/7)/(2/5+2/7) = 1/3
	// CPr: c1 has 1 true pair of 3, c2 1 of 1, c3 0 of 1: (1/3 + 1 + 0)/3 = 4/9.
	truth := mustGroups(t, []string{"a", "b", "c", "d"}, []string{"e", "f"}, []string{"g"})
	found := mustGroups(t, []string{"a", "b", "e"}, []string{"c", "d"}, []string{"f", "g"})
	checkScores(t, Compare(truth, found), Scores{
		Docs: 7, TrueClusters: 3, FoundClusters: 3,
		Precision: 11.0 / 14, Recall: 4.0 / 7, F1: 88.0 / 133, CPr: 4.0 / 9,
		PairPrecision: 2.0 / 5, PairRecall: 2.0 / 7, PairF1: 1.0 / 3,
		TruePairs: 7, FoundPairs: 5, CommonPairs: 2,
	})
}

func TestCompareMissingDocuments(t *testing.T) {
	// Truth {a,b},{c}; found {a,b,x}. c is missing from found and x from the truth: each
	// is a singleton on the side that lacks it, so R = {a,b,c,x},
	// G = {a,b},{c},{x} and C = {a,b,x},{c}.
	//   Pr = 2/4·2/3 + 1/4·1/1 + 1/4·1/3 = 2/3;  Re = (2+1+1)/4 = 1;  F1 = 0.8
	//   pairs: true 1, found 3, common 1; CPr = 1/3 (one cluster of two or more)
	truth := mustGroups(t, []string{"a", "b"}, []string{"c"})
	found := mustGroups(t, []string{"a", "b", "x"})
	checkScores(t, Compare(truth, found), Scores{
		Docs: 4, OnlyTruth: 1, OnlyFound: 1, TrueClusters: 3, FoundClusters: 2,
		Precision: 2.0 / 3, Recall: 1, F1: 0.8, CPr: 1.0 / 3,
		PairPrecision: 1.0 / 3, PairRecall: 1, PairF1: 0.5,
		TruePairs: 1, FoundPairs: 3, CommonPairs: 1,
	})
}

func TestScoreEdgeCases(t *testing.T) {
	f := func(name string, truth, found []int32, want Scores) {
		t.Helper()
		t.Run(name, func(t *testing.T) {
			got, err := Score(truth, found)
			if err != nil {
				t.Fatal(err)
			}
			checkScores(t, got, want)
		})
	}
	// Nothing to get wrong: every ratio is 1.
	f("empty", nil, nil, Scores{Precision: 1, Recall: 1, F1: 1, CPr: 1,
		PairPrecision: 1, PairRecall: 1, PairF1: 1})
	f("all singletons", []int32{0, 1, 2}, []int32{2, 0, 1}, Scores{Docs: 3, TrueClusters: 3,
		FoundClusters: 3, Precision: 1, Recall: 1, F1: 1, CPr: 1, PairPrecision: 1, PairRecall: 1, PairF1: 1})
	// Four true singletons found as one cluster: each g maps to it; Pr = 4·(1/4·1/4) =
	// 1/4, Re = 4·1/4 = 1, F1 = 0.4; its 6 pairs are all false: CPr = 0; no true pairs.
	f("one big found cluster", []int32{0, 1, 2, 3}, []int32{0, 0, 0, 0}, Scores{Docs: 4,
		TrueClusters: 4, FoundClusters: 1, Precision: 0.25, Recall: 1, F1: 0.4, CPr: 0,
		PairPrecision: 0, PairRecall: 1, PairF1: 0, FoundPairs: 6})
	// One true cluster of four found as singletons: f(g) is one of them (all tie);
	// Pr = 1·1/1 = 1, Re = 1/4, F1 = 0.4; no found pairs, 6 true pairs missed.
	f("one big true cluster", []int32{0, 0, 0, 0}, []int32{0, 1, 2, 3}, Scores{Docs: 4,
		TrueClusters: 1, FoundClusters: 4, Precision: 1, Recall: 0.25, F1: 0.4, CPr: 1,
		PairPrecision: 1, PairRecall: 0, PairF1: 0, TruePairs: 6})
	// Labels need not be dense, only below n.
	f("sparse labels", []int32{3, 3, 0, 0}, []int32{1, 1, 2, 2}, Scores{Docs: 4, TrueClusters: 2,
		FoundClusters: 2, Precision: 1, Recall: 1, F1: 1, CPr: 1, PairPrecision: 1, PairRecall: 1,
		PairF1: 1, TruePairs: 2, FoundPairs: 2, CommonPairs: 2})
}

func TestScoreErrors(t *testing.T) {
	if _, err := Score([]int32{0}, []int32{0, 1}); err == nil {
		t.Error("lengths differ: no error")
	}
	if _, err := Score([]int32{0, 2}, []int32{0, 1}); err == nil {
		t.Error("label 2 of 2 documents: no error")
	}
	if _, err := Score([]int32{0, 0}, []int32{-1, 1}); err == nil {
		t.Error("negative label: no error")
	}
}

// randomLabels returns n labels forming clusters of 1..maxSize documents in random order.
func randomLabels(rng *rand.Rand, n, maxSize int) []int32 {
	labels := make([]int32, n)
	perm := rng.Perm(n)
	l := int32(0)
	for start := 0; start < n; l++ {
		size := min(1+rng.IntN(maxSize), n-start)
		for _, i := range perm[start : start+size] {
			labels[i] = l
		}
		start += size
	}
	return labels
}

func TestPropertySelfScoreIsOne(t *testing.T) {
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 4))
		labels := randomLabels(rng, rng.IntN(200), 1+rng.IntN(20))
		s, err := Score(labels, labels)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]float64{"Precision": s.Precision, "Recall": s.Recall,
			"F1": s.F1, "CPr": s.CPr, "PairPrecision": s.PairPrecision,
			"PairRecall": s.PairRecall, "PairF1": s.PairF1} {
			if v != 1 {
				t.Errorf("seed %d: %s = %v against itself", seed, name, v)
			}
		}
	}
}

// TestPropertyRenumbering checks that the scores depend on the partitions only, and that
// Compare on string ids agrees with Score on labels, up to rounding.
func TestPropertyRenumbering(t *testing.T) {
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 5))
		n := 1 + rng.IntN(200)
		truth, found := randomLabels(rng, n, 8), randomLabels(rng, n, 8)
		want, err := Score(truth, found)
		if err != nil {
			t.Fatal(err)
		}
		perm := rng.Perm(n)
		renamed := make([]int32, n)
		for i, l := range found {
			renamed[i] = int32(perm[l])
		}
		got, _ := Score(truth, renamed)
		checkScores(t, got, want) // equal up to the order floats are summed in
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprint("doc", i)
		}
		tc, _ := FromLabels(ids, truth)
		order := rng.Perm(n) // add the found documents in another order
		fids, flabels := make([]string, n), make([]int32, n)
		for i, j := range order {
			fids[i], flabels[i] = ids[j], found[j]
		}
		fc, _ := FromLabels(fids, flabels)
		checkScores(t, Compare(tc, fc), want)
	}
}

func TestFromLabelsAndGroups(t *testing.T) {
	c, err := FromLabels([]string{"x", "y", "z"}, []int32{9, -4, 9})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.Groups()); got != "[[x z] [y]]" {
		t.Errorf("groups %s", got)
	}
	if l, ok := c.Label("y"); !ok || l != 1 {
		t.Errorf("Label(y) = %d, %v", l, ok)
	}
	if _, ok := c.Label("w"); ok {
		t.Error("Label(w) found")
	}
	if _, err := FromLabels([]string{"x", "x"}, []int32{0, 1}); err == nil {
		t.Error("repeated id: no error")
	}
	if _, err := FromGroups([][]string{{"a"}, {"b", "a"}}); err == nil {
		t.Error("repeated id across groups: no error")
	}
}
