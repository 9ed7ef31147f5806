package lsh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// tally collects estimates of one true value with the standard error the
// maths gives for each, and checks them: at least 95% within 3σ, and the
// mean within 4 standard errors of the mean of the truth (no bias).
type tally struct {
	name      string
	truth     float64
	n         int
	within    int
	sum, sum2 float64 // of estimates, and of σ²
	sumAbs    float64
}

func (s *tally) add(est, sigma float64) {
	s.n++
	s.sum += est
	s.sum2 += sigma * sigma
	s.sumAbs += math.Abs(est - s.truth)
	if math.Abs(est-s.truth) <= 3*sigma+1e-12 {
		s.within++
	}
}

func (s *tally) check(t *testing.T) {
	t.Helper()
	mean := s.sum / float64(s.n)
	se := math.Sqrt(s.sum2/float64(s.n)) / math.Sqrt(float64(s.n))
	t.Logf("%s: truth %.3f, mean %.4f (±%.4f), mean |err| %.4f, %d/%d within 3σ",
		s.name, s.truth, mean, se, s.sumAbs/float64(s.n), s.within, s.n)
	if s.within < s.n*95/100 {
		t.Errorf("%s: only %d/%d estimates within 3σ of %.3f", s.name, s.within, s.n, s.truth)
	}
	if math.Abs(mean-s.truth) > 4*se+1e-9 {
		t.Errorf("%s: mean estimate %.4f, truth %.4f: bias beyond 4 standard errors (%.4f)", s.name, mean, s.truth, se)
	}
}

// containPair returns sets of sizes na and nb sharing inter elements.
func containPair(r *rand.Rand, na, nb, inter int) (a, b []uint64) {
	for range inter {
		x := r.Uint64()
		a, b = append(a, x), append(b, x)
	}
	for range na - inter {
		a = append(a, r.Uint64())
	}
	for range nb - inter {
		b = append(b, r.Uint64())
	}
	return a, b
}

// checkResemblance runs trials of estimate on set pairs of each union size
// and resemblance, each with a seed of its own, and checks the estimates
// against σ = sqrt(J(1−J)/min(k, |A∪B|)): with fewer distinct shingles than
// k the sketch holds no more information than the union's elements.
func checkResemblance(t *testing.T, name string, k int, unions []int, estimate func(seed uint64, a, b []uint64) float64) {
	t.Helper()
	const trials = 300
	for _, union := range unions {
		for _, j := range []float64{0.2, 0.5, 0.8, 0.9} {
			shared := int(math.Round(j * float64(union)))
			if (union-shared)%2 != 0 {
				shared--
			}
			truth := float64(shared) / float64(union)
			sigma := math.Sqrt(truth * (1 - truth) / float64(min(k, union)))
			s := tally{name: fmt.Sprintf("%s |A∪B|=%d", name, union), truth: truth}
			for trial := range trials {
				r := rand.New(rand.NewPCG(uint64(union), uint64(trial)))
				a, b := setPair(r, shared, union)
				s.add(estimate(uint64(trial)+1, a, b), sigma)
			}
			s.check(t)
		}
	}
}

func TestOPHEstimator(t *testing.T) {
	const k = 128
	var sa, sb Signature
	checkResemblance(t, fmt.Sprintf("oph k=%d", k), k, []int{40, 400, 4000}, func(seed uint64, a, b []uint64) float64 {
		o := NewOPH(k, seed)
		sa, sb = o.Signature(sa, a), o.Signature(sb, b)
		return Similarity(sa, sb)
	})
}

func TestOPHDensification(t *testing.T) {
	o := NewOPH(128, 1)
	sig := o.Signature(nil, []uint64{12345})
	for i, v := range sig {
		if v != sig[0] {
			t.Fatalf("one shingle: bin %d = %d, bin 0 = %d; every bin should copy the only value", i, v, sig[0])
		}
	}
	if sig := o.Signature(nil, nil); slices.ContainsFunc(sig, func(v uint32) bool { return v != math.MaxUint32 }) {
		t.Error("empty set: want every bin empty")
	}
	// Without densification two sparse documents would agree on shared
	// empty bins; Similarity must not count those.
	a := o.Signature(nil, []uint64{1, 2, 3})
	b := o.Signature(nil, []uint64{4, 5, 6})
	if s := Similarity(a, b); s != 0 {
		t.Errorf("disjoint 3-element sets: similarity %.3f, want 0", s)
	}
}

func TestBottomKResemblance(t *testing.T) {
	const k = 128
	checkResemblance(t, fmt.Sprintf("bottom-%d resemblance", k), k, []int{100, 400, 2000}, func(seed uint64, a, b []uint64) float64 {
		bk := NewBottomK(k, seed)
		return EstimateBottomK(bk.Sketch(nil, a), bk.Sketch(nil, b), k).Resemblance
	})
}

func TestBottomKContainment(t *testing.T) {
	const trials, k = 300, 128
	f := func(na, nb, inter int) {
		t.Helper()
		ca, cb := float64(inter)/float64(na), float64(inter)/float64(nb)
		sa := tally{name: fmt.Sprintf("bottom-%d A in B |A|=%d |B|=%d", k, na, nb), truth: ca}
		sb := tally{name: fmt.Sprintf("bottom-%d B in A |A|=%d |B|=%d", k, na, nb), truth: cb}
		for trial := range trials {
			r := rand.New(rand.NewPCG(uint64(na), uint64(trial)))
			a, b := containPair(r, na, nb, inter)
			bk := NewBottomK(k, uint64(trial)+1)
			ka, kb := bk.Sketch(nil, a), bk.Sketch(nil, b)
			e := EstimateBottomK(ka, kb, k)
			nA, nB := containmentSample(ka, kb, k)
			sa.add(e.AinB, math.Sqrt(ca*(1-ca)/float64(nA)))
			sb.add(e.BinA, math.Sqrt(cb*(1-cb)/float64(nB)))
		}
		sa.check(t)
		sb.check(t)
	}
	f(300, 500, 240)
	f(1000, 1000, 700)
	f(200, 2000, 180) // small in large: A_τ holds about k/10 values
	f(100, 400, 90)   // A's sketch is the whole of A
}

func TestModMEstimator(t *testing.T) {
	const trials, m = 300, 25
	f := func(na, nb, inter int) {
		t.Helper()
		o := Overlap{Inter: inter, SizeA: na, SizeB: nb}
		name := fmt.Sprintf("mod-%d |A|=%d |B|=%d |A∩B|=%d", m, na, nb, inter)
		sr := tally{name: name + " resemblance", truth: o.Resemblance()}
		sa := tally{name: name + " A in B", truth: o.AinB()}
		sb := tally{name: name + " B in A", truth: o.BinA()}
		for trial := range trials {
			r := rand.New(rand.NewPCG(uint64(na+nb), uint64(trial)))
			a, b := containPair(r, na, nb, inter)
			mm := NewModM(m, 0, uint64(trial)+1) // plain MOD_m, no floor
			xa, xb := mm.Sketch(nil, a), mm.Sketch(nil, b)
			e := mm.Estimate(xa, xb)
			got := OverlapOf(xa, xb)
			// Conditional on the sample sizes the counts are hypergeometric.
			sr.add(e.Resemblance, binomialSE(sr.truth, got.SizeA+got.SizeB-got.Inter))
			sa.add(e.AinB, binomialSE(sa.truth, got.SizeA))
			sb.add(e.BinA, binomialSE(sb.truth, got.SizeB))
		}
		sr.check(t)
		sa.check(t)
		sb.check(t)
	}
	f(2000, 2000, 1600)
	f(1000, 3000, 900)
	f(500, 500, 250)
}

func binomialSE(p float64, n int) float64 {
	if n == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(p * (1 - p) / float64(n))
}

func TestModMSampleRate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	a, _ := setPair(r, 100000, 100000)
	got := len(NewModM(25, 32, 1).Sketch(nil, a))
	want := 100000.0 / 25
	if math.Abs(float64(got)-want) > 4*math.Sqrt(want) {
		t.Errorf("mod 25 kept %d of 100000, want %.0f ± %.0f", got, want, 4*math.Sqrt(want))
	}
}

func TestFullIsExact(t *testing.T) {
	m := testMethod(t, MethodFull, Config{}, nil)
	r := rand.New(rand.NewPCG(4, 4))
	var sc Scratch
	for range 20 {
		a := randomText(r, 200+r.IntN(3000))
		b := append(append([]byte(nil), a[:len(a)/2]...), randomText(r, 1000)...)
		sa, _ := m.Sketch(&sc, a, nil, nil)
		sb, _ := m.Sketch(&sc, b, nil, nil)
		e, err := m.Compare(sa, sb)
		if err != nil {
			t.Fatal(err)
		}
		sh := Shingling{Length: 5, Offset: 1}
		fa, fb := SortedSet(sh.Append(nil, a)), SortedSet(sh.Append(nil, b))
		o := OverlapOf(fa, fb)
		if e.Resemblance != Jaccard(fa, fb) || e.AinB != o.AinB() || e.BinA != o.BinA() {
			t.Fatalf("full: %+v, exact %+v", e, o)
		}
	}
}

// TestSuperShingleProbability checks the rate of shared mega-shingles
// against 1−(1−p)^6−6p(1−p)^5, p = J^14, and that Compare's verdict is
// exactly "a mega-shingle key is shared".
func TestSuperShingleProbability(t *testing.T) {
	const trials, union = 400, 400
	m := testMethod(t, MethodSuperShingle, Config{}, nil).(*superShingleMethod)
	for _, j := range []float64{0.7, 0.8, 0.9, 0.95} {
		shared := int(math.Round(j * union))
		p := math.Pow(float64(shared)/union, 14)
		want := 1 - math.Pow(1-p, 6) - 6*p*math.Pow(1-p, 5)
		near := 0
		for trial := range trials {
			r := rand.New(rand.NewPCG(uint64(shared), uint64(trial)))
			a, b := setPair(r, shared, union)
			pp := m.s.p
			pp.Seed = uint64(trial) + 1
			s := NewSketcher(pp)
			sa, sb := s.Signature(nil, a), s.Signature(nil, b)
			ka := MegaShingles(nil, SuperShingles(nil, sa, 14))
			kb := MegaShingles(nil, SuperShingles(nil, sb, 14))
			e, err := m.Compare(sa.AppendBinary(nil), sb.AppendBinary(nil))
			if err != nil {
				t.Fatal(err)
			}
			if shares := slices.ContainsFunc(ka, func(k uint64) bool { return slices.Contains(kb, k) }); shares != e.Near {
				t.Fatalf("J=%.2f trial %d: shared mega-shingle %v, Compare near %v", j, trial, shares, e.Near)
			}
			if e.Near {
				near++
			}
		}
		got := float64(near) / trials
		tol := 4*math.Sqrt(want*(1-want)/trials) + 0.01
		t.Logf("J=%.2f: shared mega-shingle in %.3f of pairs, theory %.3f", j, got, want)
		if math.Abs(got-want) > tol {
			t.Errorf("J=%.2f: shared mega-shingle rate %.3f, want %.3f ± %.3f", j, got, want, tol)
		}
	}
}

// TestSimHashAngle checks Charikar's relation E[d/64] ≈ θ/π on sets with
// known cosine.
func TestSimHashAngle(t *testing.T) {
	const trials, size = 200, 400
	prev := 1.0
	for _, inter := range []int{40, 200, 320, 380} {
		cos := float64(inter) / size
		want := math.Acos(cos) / math.Pi
		var sum float64
		for trial := range trials {
			r := rand.New(rand.NewPCG(uint64(inter), uint64(trial)))
			a, b := containPair(r, size, size, inter)
			s := NewSimHash(uint64(trial) + 1)
			sum += float64(Hamming(s.Fingerprint(a), s.Fingerprint(b))) / 64
		}
		got := sum / trials
		se := math.Sqrt(want*(1-want)/64) / math.Sqrt(trials)
		t.Logf("cosine %.2f: mean d/64 %.4f, θ/π %.4f", cos, got, want)
		if math.Abs(got-want) > 4*se+0.01 {
			t.Errorf("cosine %.2f: mean d/64 = %.4f, want θ/π = %.4f ± %.4f", cos, got, want, 4*se+0.01)
		}
		if got >= prev {
			t.Errorf("cosine %.2f: distance did not fall as cosine rose", cos)
		}
		prev = got
	}
}
