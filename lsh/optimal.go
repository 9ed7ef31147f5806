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
	// The loops over the grid are written out here, on variables of this
	// function's stack (each under the compiler's 128 KB limit for one):
	// the race detector instruments every access through a pointer or to
	// the heap, which made a search 30 times slower under -race (50 ms for
	// numPerm 128, paid by each Config.EnsureDefaults of the tests).
	var g simpsonGrid
	g.init(threshold)
	var pow, miss [2][quadSteps + 1]float64 // s^r and (1-s^r)^b = 1-P(s) at the nodes
	for i := range pow {
		for k := range pow[i] {
			pow[i][k] = 1
		}
	}
	best := math.Inf(1)
	for r := 1; r <= numPerm; r++ {
		for i := range pow { // the next row: s^r, and b = 0
			for k := range pow[i] {
				pow[i][k] *= g.s[i][k]
				miss[i][k] = 1
			}
		}
		if r < minRows {
			continue
		}
		for b := 1; b <= min(numPerm/r, maxBands); b++ {
			var fp, fn float64 // ∫P(s) ds below the threshold, ∫1-P(s) ds above it
			for k := range miss[0] {
				miss[0][k] *= 1 - pow[0][k]
				fp += g.w[0][k] * (1 - miss[0][k])
			}
			for k := range miss[1] {
				miss[1][k] *= 1 - pow[1][k]
				fn += g.w[1][k] * miss[1][k]
			}
			loss := fpWeight*fp + fnWeight*fn
			if loss < best || loss == best && (b < bands || b == bands && r < rows) {
				best, bands, rows = loss, b, r
			}
		}
	}
	return bands, rows
}

// simpsonGrid is the Simpson nodes and weights of [0, t] (index 0) and
// [t, 1] (index 1), where bestBanding evaluates the S-curve.
type simpsonGrid struct {
	s [2][quadSteps + 1]float64 // nodes
	w [2][quadSteps + 1]float64 // weights, including h/3
}

// init sets the nodes and weights of the two intervals split at t.
func (g *simpsonGrid) init(t float64) {
	for i, iv := range [2][2]float64{{0, t}, {t, 1}} {
		lo, hi := iv[0], iv[1]
		h := (hi - lo) / quadSteps
		for k := range g.s[i] {
			g.s[i][k] = lo + float64(k)*h
			switch {
			case k == 0 || k == quadSteps:
				g.w[i][k] = h / 3
			case k%2 == 1:
				g.w[i][k] = 4 * h / 3
			default:
				g.w[i][k] = 2 * h / 3
			}
		}
	}
}
