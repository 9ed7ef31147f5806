package lsh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// footer is the shared boilerplate of the golden case: 28 words a mailing list
// appends to every message.
const footer = "this message was sent to the members of the valley gardening circle " +
	"to leave the list or change how often you hear from us reply with the word stop"

// TestModMShortPageGolden is the golden case of mod-m's floor: a short page (about 65
// shingles, some 2.6 of which a plain mod-25 sample keeps) that shares only a footer
// with another page — a short one (bridge.txt, about 140 shingles) or a long one (about
// 1,300) — is neither near nor contained in it, either way round, at any of 50 seeds.
// Plain MOD_m, without the floor, calls some of the same pairs near or contained: the
// defect.
func TestModMShortPageGolden(t *testing.T) {
	words := func(name string, n int) string {
		b, err := os.ReadFile("../testdata/runs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w := strings.Fields(string(b))
		return strings.Join(w[:min(n, len(w))], " ")
	}
	norm := func(s string) []byte {
		s = strings.ToLower(strings.NewReplacer(".", "", ",", "").Replace(s))
		return []byte(strings.Join(strings.Fields(s), " "))
	}
	short := norm(words("bees.txt", 41) + " " + footer)
	others := map[string][]byte{
		"short": norm(words("bridge.txt", 200) + " " + footer),
		"long":  norm(string(randomText(rand.New(rand.NewPCG(5, 5)), 9<<10)) + " " + footer),
	}
	sh := Shingling{Length: 5, Offset: 1}
	plainBad := 0
	for name, other := range others {
		sa, sb := SortedSet(sh.Append(nil, short)), SortedSet(sh.Append(nil, other))
		o := OverlapOf(sa, sb)
		t.Logf("short page %d shingles, %s page %d, shared %d: exact resemblance %.3f, short in other %.3f",
			len(sa), name, len(sb), o.Inter, o.Resemblance(), o.AinB())
		if len(sa) < 60 || len(sa) > 70 || o.AinB() > 0.5 {
			t.Fatalf("the golden pages are not what the test is about")
		}
		for seed := range uint64(50) {
			m := testMethod(t, MethodModM, Config{Params: Params{Seed: seed + 1}}, nil)
			var sc Scratch
			ka, _ := m.Sketch(&sc, short, nil, nil)
			kb, _ := m.Sketch(&sc, other, nil, nil)
			for _, pair := range [][2][]byte{{ka, kb}, {kb, ka}} {
				e, err := m.Compare(pair[0], pair[1])
				if err != nil {
					t.Fatal(err)
				}
				if e.Near || e.AinB >= DefaultContainment || e.BinA >= DefaultContainment {
					t.Errorf("%s, %s page, seed %d: %+v: near or contained", m.Version(), name, seed+1, e)
				}
			}
			plain := NewModM(DefaultModM, 0, seed+1)
			e := plain.Estimate(plain.Sketch(nil, sa), plain.Sketch(nil, sb))
			if e.Resemblance >= 0.8 || e.AinB >= DefaultContainment {
				plainBad++
			}
		}
	}
	t.Logf("plain MOD_25 called %d of 100 pairs near or contained", plainBad)
	if plainBad == 0 {
		t.Error("plain MOD_25 never erred on these pages: the test no longer shows the defect")
	}
}

// TestModMFloorEstimator checks the estimators of the floored sample at fixed seeds,
// for short and long pages and mixtures: every estimate within 3σ of the truth in at
// least 95% of trials and unbiased (tally), σ the binomial bound on the sample U the
// estimate is made of (see ModM); and a containment is withheld (NaN) exactly when its
// page has fewer than MinSample values in U.
func TestModMFloorEstimator(t *testing.T) {
	const trials, m, n = 300, 25, 32
	f := func(na, nb, inter int) {
		t.Helper()
		o := Overlap{Inter: inter, SizeA: na, SizeB: nb}
		name := fmt.Sprintf("mod-%d floor %d |A|=%d |B|=%d |A∩B|=%d", m, n, na, nb, inter)
		sr := tally{name: name + " resemblance", truth: o.Resemblance()}
		sa := tally{name: name + " A in B", truth: o.AinB()}
		sb := tally{name: name + " B in A", truth: o.BinA()}
		withheld := 0
		for trial := range trials {
			r := rand.New(rand.NewPCG(uint64(na+nb), uint64(trial)))
			a, b := containPair(r, na, nb, inter)
			mm := NewModM(m, n, uint64(trial)+1)
			xa, xb := mm.Sketch(nil, a), mm.Sketch(nil, b)
			e := mm.Estimate(xa, xb)
			u, _ := mm.Overlap(xa, xb)
			sr.add(e.Resemblance, binomialSE(sr.truth, u.SizeA+u.SizeB-u.Inter))
			for _, c := range []struct {
				est  float64
				size int
				s    *tally
			}{{e.AinB, u.SizeA, &sa}, {e.BinA, u.SizeB, &sb}} {
				if math.IsNaN(c.est) != (c.size < mm.MinSample()) {
					t.Fatalf("%s trial %d: containment %v from a sample of %d (floor %d)", name, trial, c.est, c.size, mm.MinSample())
				}
				if math.IsNaN(c.est) {
					withheld++
					continue
				}
				c.s.add(c.est, binomialSE(c.s.truth, c.size))
			}
		}
		sr.check(t)
		sa.check(t)
		sb.check(t)
		t.Logf("%s: %d of %d containments withheld", name, withheld, 2*trials)
	}
	f(100, 100, 80)   // two short pages
	f(60, 200, 55)    // a short page mostly inside a longer short one
	f(300, 3000, 280) // a short page mostly inside a long one: A's mod-m sample only
	f(700, 900, 600)  // near the boundary of short (n·m = 800)
	f(1500, 2000, 1200)
}

// TestModMFloorSketch checks what the sample holds, at fixed seeds: every hash ≡ 0
// (mod m), and, when those are fewer than n, the n smallest hashes as well (the whole
// page when it has fewer than n shingles); and that two long samples (≥ n values
// ≡ 0 mod m) are estimated exactly as plain MOD_m does, and two whole pages exactly.
func TestModMFloorSketch(t *testing.T) {
	const m, n = 25, 32
	for trial := range uint64(200) {
		r := rand.New(rand.NewPCG(trial, 77))
		a, b := containPair(r, 1+r.IntN(2500), 1+r.IntN(2500), 0)
		mm, plain := NewModM(m, n, trial), NewModM(m, 0, trial)
		hashes := make([]uint64, len(a))
		for i, x := range a {
			hashes[i] = mix64(x ^ mm.key)
		}
		slices.Sort(hashes)
		var want []uint64
		mods := 0
		for i, h := range hashes {
			if h%m == 0 {
				mods++
			}
			if h%m == 0 || i < n {
				want = append(want, h)
			}
		}
		if mods >= n {
			want = slices.DeleteFunc(want, func(h uint64) bool { return h%m != 0 })
		}
		if got := mm.Sketch(nil, a); !slices.Equal(got, want) {
			t.Fatalf("trial %d, %d shingles (%d ≡ 0 mod %d): sample of %d values, want %d", trial, len(a), mods, m, len(got), len(want))
		}
		xa, xb := mm.Sketch(nil, a), mm.Sketch(nil, b)
		pa, pb := plain.Sketch(nil, a), plain.Sketch(nil, b)
		if len(pa) >= n && len(pb) >= n && mm.Estimate(xa, xb) != plain.Estimate(pa, pb) {
			t.Fatalf("trial %d: two long samples estimated unlike plain MOD_%d", trial, m)
		}
	}
	for trial := range uint64(50) {
		r := rand.New(rand.NewPCG(trial, 78))
		inter := r.IntN(20)
		a, b := containPair(r, inter+r.IntN(n-inter), inter+r.IntN(n-inter), inter)
		mm := NewModM(m, n, trial)
		got := mm.Estimate(mm.Sketch(nil, a), mm.Sketch(nil, b))
		if want := OverlapOf(SortedSet(a), SortedSet(b)).estimate(); got != want {
			t.Fatalf("trial %d: whole pages of %d and %d shingles estimated %+v, exact %+v", trial, len(a), len(b), got, want)
		}
	}
}

// TestDivisor checks the division-free divisibility test against %, for every m up to
// 1000 and powers of two beyond, on multiples of m, their neighbours and random values.
func TestDivisor(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	ms := []uint64{1 << 20, 1 << 40, 1 << 63, math.MaxUint64, math.MaxUint64 - 1}
	for m := uint64(1); m <= 1000; m++ {
		ms = append(ms, m)
	}
	for _, m := range ms {
		d := newDivisor(m)
		for range 300 {
			q := r.Uint64() / m
			for _, x := range []uint64{q * m, q*m + 1, q*m - 1, r.Uint64(), 0, math.MaxUint64} {
				if d.divides(x) != (x%m == 0) {
					t.Fatalf("m %d, x %d: divides %v, x %% m = %d", m, x, d.divides(x), x%m)
				}
			}
		}
	}
}
