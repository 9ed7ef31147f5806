package lsh

import (
	"math"
	"strconv"
	"testing"
)

// bruteLoss is an independent reference for OptimalBands' objective: the same
// areas by the composite trapezoid rule, evaluating P(s) directly at each
// node by square-and-multiply powers.
func bruteLoss(t float64, b, r int, fpw, fnw float64) float64 {
	const steps = 2000
	p := func(s float64) float64 { return 1 - ipow(1-ipow(s, r), b) }
	trap := func(lo, hi float64, g func(float64) float64) float64 {
		h := (hi - lo) / steps
		sum := (g(lo) + g(hi)) / 2
		for k := 1; k < steps; k++ {
			sum += g(lo + float64(k)*h)
		}
		return sum * h
	}
	fp := trap(0, t, p)
	fn := trap(t, 1, func(s float64) float64 { return 1 - p(s) })
	return fpw*fp + fnw*fn
}

// ipow returns x^n for n >= 0 by binary exponentiation.
func ipow(x float64, n int) float64 {
	y := 1.0
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			y *= x
		}
		x *= x
	}
	return y
}

func TestOptimalBandsBruteForce(t *testing.T) {
	// The trapezoid rule with 2000 steps is good to a few 1e-6 here; allow
	// that much slack between the two integrators when choosing a winner.
	const tol = 1e-5
	for _, n := range []int{64, 128, 256} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			checkOptimalBands(t, n, tol)
		})
	}
}

func checkOptimalBands(t *testing.T, n int, tol float64) {
	exact := 0
	for k := range 10 {
		th := 0.5 + 0.05*float64(k)
		b, r := OptimalBands(th, n, 0.5, 0.5)
		if b < 1 || r < 1 || b*r > n {
			t.Fatalf("OptimalBands(%.2f, %d) = (%d, %d): not a valid banding", th, n, b, r)
		}
		bestB, bestR, best := 0, 0, math.Inf(1)
		for bb := 1; bb <= n; bb++ {
			for rr := 1; bb*rr <= n; rr++ {
				if l := bruteLoss(th, bb, rr, 0.5, 0.5); l < best {
					bestB, bestR, best = bb, rr, l
				}
			}
		}
		if b == bestB && r == bestR {
			exact++
			continue
		}
		if got := bruteLoss(th, b, r, 0.5, 0.5); got > best+tol {
			t.Errorf("OptimalBands(%.2f, %d) = (%d, %d) loss %.8f; brute force (%d, %d) loss %.8f",
				th, n, b, r, got, bestB, bestR, best)
		}
	}
	t.Logf("n=%d: %d of 10 thresholds match the brute-force optimum exactly", n, exact)
}

func TestOptimalBandsDatasketch(t *testing.T) {
	// Values produced by datasketch's _optimal_param (scipy quad).
	f := func(th float64, n int, fpw, fnw float64, wantB, wantR int) {
		t.Helper()
		if b, r := OptimalBands(th, n, fpw, fnw); b != wantB || r != wantR {
			t.Errorf("OptimalBands(%v, %d, %v, %v) = (%d, %d), want (%d, %d)", th, n, fpw, fnw, b, r, wantB, wantR)
		}
	}
	f(0.8, 128, 0.5, 0.5, 9, 13)
	f(0.75, 256, 0.5, 0.5, 21, 12)
	f(0.75, 256, 0.1, 0.9, 28, 9)
}

func TestOptimalBandsSCurve(t *testing.T) {
	// The chosen S-curve should cross 1/2 near the threshold.
	for _, th := range []float64{0.5, 0.6, 0.7, 0.8, 0.9} {
		b, r := OptimalBands(th, 128, 0.5, 0.5)
		// P(s) = 1/2 at s = (1 - 2^(-1/b))^(1/r).
		cross := math.Pow(1-math.Pow(0.5, 1/float64(b)), 1/float64(r))
		if math.Abs(cross-th) > 0.1 {
			t.Errorf("t=%v: (b, r) = (%d, %d) crosses 1/2 at s=%.3f", th, b, r, cross)
		}
	}
}

func TestOptimalBandsWeights(t *testing.T) {
	// Penalising false negatives more must not raise the crossing point.
	cross := func(b, r int) float64 { return math.Pow(1-math.Pow(0.5, 1/float64(b)), 1/float64(r)) }
	bEq, rEq := OptimalBands(0.8, 128, 0.5, 0.5)
	bFN, rFN := OptimalBands(0.8, 128, 0.1, 0.9)
	if cross(bFN, rFN) > cross(bEq, rEq) {
		t.Errorf("fn-heavy (%d, %d) crosses at %.3f above equal-weight (%d, %d) at %.3f",
			bFN, rFN, cross(bFN, rFN), bEq, rEq, cross(bEq, rEq))
	}
}

func TestOptimalBandsInvalid(t *testing.T) {
	f := func(th float64, n int, fpw, fnw float64) {
		t.Helper()
		if b, r := OptimalBands(th, n, fpw, fnw); b != 0 || r != 0 {
			t.Errorf("OptimalBands(%v, %d, %v, %v) = (%d, %d), want (0, 0)", th, n, fpw, fnw, b, r)
		}
	}
	f(0.8, 0, 0.5, 0.5)
	f(0, 128, 0.5, 0.5)
	f(1, 128, 0.5, 0.5)
	f(math.NaN(), 128, 0.5, 0.5)
	f(0.8, 128, 0, 0)
	f(0.8, 128, -1, 0.5)
	f(0.8, 128, 0.5, math.NaN())
}

func TestAutoBands(t *testing.T) {
	// AutoBands is OptimalBands' objective over b <= maxBands, r >= 2:
	// check it against the brute force over the same bandings.
	for _, n := range []int{16, 64, 128} {
		for _, maxBands := range []int{4, 10} {
			for k := range 9 {
				th := 0.5 + 0.05*float64(k)
				b, r := AutoBands(th, n, maxBands, 0.01, 0.99)
				if b < 1 || b > maxBands || r < MinAutoRows || b*r > n {
					t.Fatalf("AutoBands(%.2f, %d, %d) = (%d, %d): outside the allowed bandings", th, n, maxBands, b, r)
				}
				best := math.Inf(1)
				for bb := 1; bb <= maxBands; bb++ {
					for rr := MinAutoRows; bb*rr <= n; rr++ {
						best = min(best, bruteLoss(th, bb, rr, 0.01, 0.99))
					}
				}
				if got := bruteLoss(th, b, r, 0.01, 0.99); got > best+1e-5 {
					t.Errorf("AutoBands(%.2f, %d, %d) = (%d, %d) loss %.8f; brute force %.8f", th, n, maxBands, b, r, got, best)
				}
			}
		}
	}
	// The default: fewer keys than OptimalBands' 16x8 that catch a pair at
	// the threshold more often.
	b, r := AutoBands(0.8, 128, DefaultMaxBands, DefaultFPWeight, DefaultFNWeight)
	p := func(b, r int, s float64) float64 { return 1 - ipow(1-ipow(s, r), b) }
	if b != 10 || r != 5 || p(b, r, 0.8) < p(16, 8, 0.8) {
		t.Errorf("default banding at 0.8: %dx%d, P(0.8) = %.3f; want 10x5, above 16x8's %.3f", b, r, p(b, r, 0.8), p(16, 8, 0.8))
	}
	// The settings docs/sketches.md gives for states of the earlier choice reproduce it.
	for _, n := range []int{32, 128} {
		for _, th := range []float64{0.5, 0.6, 0.7, 0.8, 0.9} {
			b, r := AutoBands(th, n, 128, 0.05, 0.95)
			if ob, or := OptimalBands(th, n, 0.05, 0.95); b != ob || r != or {
				t.Errorf("AutoBands(%v, %d, 128, 0.05, 0.95) = %dx%d, the earlier choice %dx%d", th, n, b, r, ob, or)
			}
		}
	}
	if b, r := AutoBands(0.8, 1, 10, 0.01, 0.99); b != 1 || r != 1 {
		t.Errorf("AutoBands with one permutation = (%d, %d), want (1, 1)", b, r)
	}
	if b, r := AutoBands(0.8, 128, 0, 0.01, 0.99); b != 0 || r != 0 {
		t.Errorf("AutoBands with max 0 bands = (%d, %d), want (0, 0)", b, r)
	}
}
