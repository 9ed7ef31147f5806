package lsh

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSimilarityEstimator checks the MinHash estimator against the bound the
// maths gives: with n permutations the estimate of J is Binomial(n, J)/n, so
// its standard error is sqrt(J(1-J)/n).
func TestSimilarityEstimator(t *testing.T) {
	const (
		trials = 200
		union  = 400
	)
	for _, n := range []int{64, 128} {
		for _, j := range []float64{0.2, 0.5, 0.8, 0.9, 0.95} {
			shared := int(math.Round(j * union))
			sigma := math.Sqrt(j * (1 - j) / float64(n))
			var sumErr float64
			within := 0
			var sa, sb Signature
			for trial := range trials {
				r := rand.New(rand.NewPCG(uint64(n), uint64(trial)))
				a, b := setPair(r, shared, union)
				if exact := Jaccard(a, b); exact != j {
					t.Fatalf("constructed pair has Jaccard %v, want %v", exact, j)
				}
				s := testSketcher(t, Params{NumPerm: n, Bands: 1, Rows: 1, Seed: uint64(trial) + 1})
				sa, sb = s.Signature(sa, a), s.Signature(sb, b)
				d := math.Abs(Similarity(sa, sb) - j)
				sumErr += d
				if d <= 3*sigma {
					within++
				}
			}
			meanErr := sumErr / trials
			t.Logf("n=%d J=%.2f: mean |err| %.4f (σ %.4f), %d/%d within 3σ", n, j, meanErr, sigma, within, trials)
			if meanErr > 1/math.Sqrt(float64(n)) {
				t.Errorf("n=%d J=%.2f: mean |estimate-J| = %.4f > 1/sqrt(n)", n, j, meanErr)
			}
			// For independent permutations E|err| ≈ sqrt(2/π)σ; correlated
			// permutations inflate it. 1.3× is about 4 standard errors of
			// the mean over 200 trials.
			if meanErr > 1.3*math.Sqrt(2/math.Pi)*sigma {
				t.Errorf("n=%d J=%.2f: mean |estimate-J| = %.4f, too large for σ=%.4f", n, j, meanErr, sigma)
			}
			if within < trials*95/100 {
				t.Errorf("n=%d J=%.2f: only %d/%d estimates within 3σ=%.4f", n, j, within, trials, 3*sigma)
			}
		}
	}
}

// TestBandCollision checks that pairs of similarity s share at least one band
// key with probability 1-(1-s^r)^b, within a binomial tolerance.
func TestBandCollision(t *testing.T) {
	const (
		trials = 400
		union  = 200
	)
	f := func(p Params, s float64) {
		t.Helper()
		want := 1 - math.Pow(1-math.Pow(s, float64(p.Rows)), float64(p.Bands))
		shared := int(math.Round(s * union))
		hits := 0
		var sa, sb Signature
		var ka, kb []uint64
		for trial := range trials {
			r := rand.New(rand.NewPCG(uint64(p.Bands), uint64(trial)))
			a, b := setPair(r, shared, union)
			p.Seed = uint64(trial) + 1
			sk := testSketcher(t, p)
			sa, sb = sk.Signature(sa, a), sk.Signature(sb, b)
			ka, kb = sk.BandKeys(ka[:0], sa), sk.BandKeys(kb[:0], sb)
			for i := range ka {
				if ka[i] == kb[i] {
					hits++
					break
				}
			}
		}
		got := float64(hits) / trials
		tol := 4*math.Sqrt(want*(1-want)/trials) + 0.01
		if math.Abs(got-want) > tol {
			t.Errorf("b=%d r=%d s=%.2f: collision rate %.3f, want %.3f ± %.3f", p.Bands, p.Rows, s, got, want, tol)
		}
	}
	wide := Params{NumPerm: 64, Bands: 16, Rows: 4}
	for _, s := range []float64{0.2, 0.4, 0.5, 0.6, 0.8} {
		f(wide, s)
	}
	def := Params{NumPerm: 128, Bands: 9, Rows: 13}
	for _, s := range []float64{0.5, 0.7, 0.8, 0.9} {
		f(def, s)
	}
}
