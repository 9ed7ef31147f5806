package lsh

import "math"

// quadSteps is the number of Simpson intervals used for each of the two
// integrals in OptimalBands. It must be even.
const quadSteps = 2048

// OptimalBands returns the bands b and rows r (b*r <= numPerm) minimising
// fpWeight*FP + fnWeight*FN, where, with P(s) = 1-(1-s^r)^b the probability
// that a pair of Jaccard similarity s shares at least one band,
//
//	FP = ∫_0^t P(s) ds   (false-positive area)
//	FN = ∫_t^1 1-P(s) ds (false-negative area)
//
// This is datasketch's _optimal_param; the integrals are computed by
// composite Simpson's rule with quadSteps intervals. Ties go to the smallest
// b, then the smallest r, as in datasketch's search order. It returns (0, 0)
// if numPerm < 1, threshold is not in (0, 1), or the weights are negative,
// non-finite or both zero. The result is deterministic; the cost grows as
// numPerm·ln(numPerm)·quadSteps (about 30 ms for numPerm = 1024).
func OptimalBands(threshold float64, numPerm int, fpWeight, fnWeight float64) (bands, rows int) {
	return bestBanding(threshold, numPerm, numPerm, 1, fpWeight, fnWeight)
}

// MinAutoRows is the fewest rows a band chosen by AutoBands has: a band of
// one 16-bit minimum has only 65,536 keys, so unrelated pages would share
// buckets by chance.
const MinAutoRows = 2

// AutoBands is the banding EnsureDefaults chooses when sketch.bands and
// sketch.rows are both unset: OptimalBands' objective over the bandings of at
// most maxBands bands and at least MinAutoRows rows. Each band is one key a
// page writes to the index and one it looks up, whatever the page, while a
// false-positive candidate costs only a verification against its stored
// sketch; capping the bands and weighing misses heavily (DefaultFNWeight)
// gives fewer keys that catch pairs at the threshold more often (at 0.8: 10
// bands of 5 rows, 0.981 at the threshold, against OptimalBands' 16 of 8 and
// 0.947), at the price of more candidates well below it. It returns (0, 0)
// where OptimalBands does, or when maxBands < 1. With numPerm < MinAutoRows
// the rows are numPerm.
func AutoBands(threshold float64, numPerm, maxBands int, fpWeight, fnWeight float64) (bands, rows int) {
	return bestBanding(threshold, numPerm, maxBands, min(MinAutoRows, numPerm), fpWeight, fnWeight)
}

// bestBanding minimises fpWeight*FP + fnWeight*FN over b <= maxBands,
// r >= minRows, b*r <= numPerm (see OptimalBands).
func bestBanding(threshold float64, numPerm, maxBands, minRows int, fpWeight, fnWeight float64) (bands, rows int) {
	if numPerm < 1 || maxBands < 1 || !(threshold > 0 && threshold < 1) ||
		!validWeight(fpWeight) || !validWeight(fnWeight) || fpWeight+fnWeight == 0 {
		return 0, 0
	}
	below := newCurveGrid(0, threshold)
	above := newCurveGrid(threshold, 1)
	best := math.Inf(1)
	for r := 1; r <= numPerm; r++ {
		below.nextRow()
		above.nextRow()
		if r < minRows {
			continue
		}
		for b := 1; b <= min(numPerm/r, maxBands); b++ {
			fp, _ := below.nextBand()
			_, fn := above.nextBand()
			loss := fpWeight*fp + fnWeight*fn
			if loss < best || loss == best && (b < bands || b == bands && r < rows) {
				best, bands, rows = loss, b, r
			}
		}
	}
	return bands, rows
}

// curveGrid evaluates the S-curve P(s) = 1-(1-s^r)^b at the Simpson nodes
// of one interval, incrementally: nextRow moves to r+1 with b = 0, nextBand
// moves to b+1.
type curveGrid struct {
	s    []float64 // nodes
	w    []float64 // Simpson weights, including h/3
	pow  []float64 // s^r
	miss []float64 // (1-s^r)^b = 1-P(s)
}

func newCurveGrid(lo, hi float64) *curveGrid {
	n := quadSteps + 1
	g := &curveGrid{
		s:    make([]float64, n),
		w:    make([]float64, n),
		pow:  make([]float64, n),
		miss: make([]float64, n),
	}
	h := (hi - lo) / quadSteps
	for k := range n {
		g.s[k] = lo + float64(k)*h
		g.pow[k] = 1
		switch {
		case k == 0 || k == quadSteps:
			g.w[k] = h / 3
		case k%2 == 1:
			g.w[k] = 4 * h / 3
		default:
			g.w[k] = 2 * h / 3
		}
	}
	return g
}

func (g *curveGrid) nextRow() {
	pow, miss := g.pow[:len(g.s)], g.miss[:len(g.s)]
	for k, s := range g.s {
		pow[k] *= s
		miss[k] = 1
	}
}

// nextBand adds one band and returns ∫P(s) ds and ∫1-P(s) ds over the grid.
func (g *curveGrid) nextBand() (hit, miss float64) {
	m := g.miss
	pow, w := g.pow[:len(m)], g.w[:len(m)]
	for k := range m {
		m[k] *= 1 - pow[k]
		hit += w[k] * (1 - m[k])
		miss += w[k] * m[k]
	}
	return hit, miss
}
