package quality

import (
	"fmt"
	"slices"
)

// Scores compares a found clustering with the true one. Every ratio is in [0, 1]; a
// ratio with nothing to count (no pairs claimed, no true pairs, no clusters of two or
// more, no documents) is 1, since nothing was got wrong.
type Scores struct {
	Docs          int // |R|, the documents scored
	OnlyTruth     int // documents only the truth has, scored as found singletons
	OnlyFound     int // documents only the found clustering has, scored as true singletons
	TrueClusters  int // |G|, singletons included
	FoundClusters int // |C|, singletons included

	// Precision, Recall and F1 map each true cluster g to the found cluster f(g) sharing
	// the most documents with it; ties go to the smaller found cluster, so the scores do
	// not depend on how clusters are numbered.
	Precision, Recall, F1 float64

	// CPr is the mean, over found clusters of two or more documents, of the share of the
	// cluster's pairs that are true pairs (in one true cluster). PairPrecision pools the
	// same counts over all clusters: CommonPairs/FoundPairs.
	CPr float64

	PairPrecision float64 // CommonPairs / FoundPairs
	PairRecall    float64 // CommonPairs / TruePairs
	PairF1        float64
	TruePairs     int64 // pairs of documents in one true cluster
	FoundPairs    int64 // pairs of documents in one found cluster
	CommonPairs   int64 // pairs in one true cluster and one found cluster
}

// Compare scores found against truth. Documents are matched by id; a document missing
// from one side is a singleton on that side (the truth does not know it as a copy of
// anything, or the clustering never put it with anything), so R is the union of both
// sides' documents.
func Compare(truth, found *Clustering) Scores {
	tl := make([]int32, 0, truth.Len()+found.Len())
	fl := make([]int32, 0, cap(tl))
	tl = append(tl, truth.labels...)
	nextF := int32(found.k) // new singleton labels for documents found lacks
	for _, id := range truth.ids {
		l, ok := found.Label(id)
		if !ok {
			l = nextF
			nextF++
		}
		fl = append(fl, l)
	}
	nextT := int32(truth.k) // and for documents the truth lacks
	for i, id := range found.ids {
		if _, ok := truth.index[id]; !ok {
			tl = append(tl, nextT)
			fl = append(fl, found.labels[i])
			nextT++
		}
	}
	s, err := Score(tl, fl)
	if err != nil {
		panic(err) // labels are below truth.k+OnlyFound and found.k+OnlyTruth, both ≤ |R|
	}
	s.OnlyTruth = int(nextF) - found.k
	s.OnlyFound = int(nextT) - truth.k
	return s
}

// Score compares two clusterings of the same n documents given as label arrays:
// document i is in true cluster truth[i] and found cluster found[i]. Labels must lie in
// [0, n); they need not be dense. Score sorts one n-element array and allocates O(n).
func Score(truth, found []int32) (Scores, error) {
	n := len(truth)
	if len(found) != n {
		return Scores{}, fmt.Errorf("quality: score: %d true labels but %d found", n, len(found))
	}
	a, err := sizes(truth, "true")
	if err != nil {
		return Scores{}, err
	}
	b, err := sizes(found, "found")
	if err != nil {
		return Scores{}, err
	}
	s := Scores{Docs: n, TrueClusters: countNonZero(a), FoundClusters: countNonZero(b)}
	t := newTable(truth, found, a, b)
	s.TruePairs, s.FoundPairs, s.CommonPairs = sumPairs(a), sumPairs(b), t.common
	if n > 0 {
		s.Precision, s.Recall = t.prec/float64(n), t.rec/float64(n)
	} else {
		s.Precision, s.Recall = 1, 1
	}
	s.F1 = harmonic(s.Precision, s.Recall)
	s.CPr = t.cpr(b)
	s.PairPrecision = ratio(s.CommonPairs, s.FoundPairs)
	s.PairRecall = ratio(s.CommonPairs, s.TruePairs)
	s.PairF1 = harmonic(s.PairPrecision, s.PairRecall)
	return s, nil
}

// table holds what Score needs from the contingency table of (true, found) counts.
type table struct {
	common    int64   // Σ C(n_gc, 2)
	perFound  []int64 // Σ_g C(n_gc, 2) for each found cluster c
	prec, rec float64 // Σ_g |g|·n_g,f(g)/|f(g)| and Σ_g n_g,f(g)
}

// newTable sorts the (true, found) label pairs so that each cell of the table is a run,
// and each true cluster a run of cells.
func newTable(truth, found []int32, a, b []int32) table {
	keys := make([]uint64, len(truth))
	for i := range truth {
		keys[i] = uint64(truth[i])<<32 | uint64(found[i])
	}
	slices.Sort(keys)
	t := table{perFound: make([]int64, len(b))}
	for i := 0; i < len(keys); {
		g := int32(keys[i] >> 32)
		bestN, bestC := int32(0), int32(-1)
		for i < len(keys) && int32(keys[i]>>32) == g { // cells of true cluster g
			c, j := int32(keys[i]), i
			for i < len(keys) && keys[i] == keys[j] {
				i++
			}
			cnt := int32(i - j)
			t.common += pairs(cnt)
			t.perFound[c] += pairs(cnt)
			if cnt > bestN || cnt == bestN && b[c] < b[bestC] { // c ascending: ties keep the lower
				bestN, bestC = cnt, c
			}
		}
		t.prec += float64(a[g]) * float64(bestN) / float64(b[bestC])
		t.rec += float64(bestN)
	}
	return t
}

// cpr averages each found cluster's share of true pairs over clusters of two or more.
func (t table) cpr(b []int32) float64 {
	sum, count := 0.0, 0
	for c, size := range b {
		if size >= 2 {
			sum += float64(t.perFound[c]) / float64(pairs(size))
			count++
		}
	}
	if count == 0 {
		return 1
	}
	return sum / float64(count)
}

// sizes counts the documents of each label, checking labels lie in [0, n).
func sizes(labels []int32, side string) ([]int32, error) {
	s := make([]int32, len(labels))
	for i, l := range labels {
		if l < 0 || int(l) >= len(labels) {
			return nil, fmt.Errorf("quality: score: %s label %d of document %d not in [0,%d)", side, l, i, len(labels))
		}
		s[l]++
	}
	return s, nil
}

func countNonZero(s []int32) int {
	k := 0
	for _, x := range s {
		if x > 0 {
			k++
		}
	}
	return k
}

func pairs(n int32) int64 { return int64(n) * int64(n-1) / 2 }

func sumPairs(s []int32) int64 {
	var sum int64
	for _, x := range s {
		sum += pairs(x)
	}
	return sum
}

func ratio(num, den int64) float64 {
	if den == 0 {
		return 1
	}
	return float64(num) / float64(den)
}

func harmonic(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}
