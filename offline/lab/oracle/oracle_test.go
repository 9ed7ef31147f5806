package oracle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
)

func TestPairsSmall(t *testing.T) {
	sets := [][]uint64{
		{1, 2, 3, 4},
		{3, 4, 5, 6},
		{1, 2, 3, 4, 5, 6, 7, 8},
		{9},
		{},
	}
	f := func(threshold float64, want ...Pair) {
		t.Helper()
		got, st, err := Pairs(sets, Options{Threshold: threshold})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("threshold %v: %v, want %v", threshold, got, want)
		}
		if st.Reported != len(got) || st.Docs != 5 || st.Shingles != 9 {
			t.Errorf("stats %+v", st)
		}
	}
	p := func(a, b, inter, na, nb int) Pair {
		return Pair{A: a, B: b, Overlap: lsh.Overlap{Inter: inter, SizeA: na, SizeB: nb}}
	}
	f(0, p(0, 1, 2, 4, 4), p(0, 2, 4, 4, 8), p(1, 2, 4, 4, 8))
	f(0.6, p(0, 2, 4, 4, 8), p(1, 2, 4, 4, 8))
	f(1.01)
}

func TestPairsRejectsUnsorted(t *testing.T) {
	if _, _, err := Pairs([][]uint64{{1, 2}, {3, 3}}, Options{}); err == nil {
		t.Error("set with a repeat: no error")
	}
}

// plantedSets returns n sets in families: each family member keeps a random share
// of the family's base set and adds its own elements, drawing from a small pool
// of common elements too so that some shingles are in many sets.
func plantedSets(r *rand.Rand, n int) [][]uint64 {
	var sets [][]uint64
	for len(sets) < n {
		base := make([]uint64, 20+r.IntN(200))
		for i := range base {
			base[i] = r.Uint64()
		}
		for range 1 + r.IntN(4) {
			var s []uint64
			keep := 0.3 + 0.7*r.Float64()
			for _, x := range base {
				if r.Float64() < keep {
					s = append(s, x)
				}
			}
			for range r.IntN(50) {
				s = append(s, r.Uint64())
			}
			for range r.IntN(8) {
				s = append(s, uint64(r.IntN(30))) // common "boilerplate"
			}
			sets = append(sets, lsh.SortedSet(s))
		}
	}
	return sets[:n]
}

// checkAgainstBrute compares Pairs with brute force (want, bruteForce of
// sets at opt.Threshold, computed once for the options that share it).
// Without a cap they must be equal; with one, every reported pair must be in
// brute force with the same overlap, and every missed pair must share only
// skipped shingles.
func checkAgainstBrute(t *testing.T, name string, sets [][]uint64, want []Pair, opt Options) Stats {
	t.Helper()
	got, st, err := Pairs(sets, opt)
	if err != nil {
		t.Fatal(err)
	}
	if opt.MaxDocFreq < 0 || st.Skipped == 0 {
		if !slices.Equal(got, want) {
			t.Fatalf("%s %+v: %d pairs, brute force %d", name, opt, len(got), len(want))
		}
		return st
	}
	df := map[uint64]int{}
	for _, s := range sets {
		for _, x := range s {
			df[x]++
		}
	}
	i := 0
	for _, w := range want {
		if i < len(got) && got[i].A == w.A && got[i].B == w.B {
			if got[i] != w {
				t.Fatalf("%s: pair %d,%d overlap %+v, brute force %+v", name, w.A, w.B, got[i].Overlap, w.Overlap)
			}
			i++
			continue
		}
		for _, x := range intersect(sets[w.A], sets[w.B]) {
			if df[x] <= opt.MaxDocFreq {
				t.Fatalf("%s: missed pair %d,%d shares shingle %x in %d sets, under the cap %d", name, w.A, w.B, x, df[x], opt.MaxDocFreq)
			}
		}
	}
	if i != len(got) {
		t.Fatalf("%s: %d reported pairs not found by brute force", name, len(got)-i)
	}
	return st
}

func intersect(a, b []uint64) []uint64 {
	var out []uint64
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			out = append(out, x)
		}
	}
	return out
}

func TestPairsMatchBruteForcePlanted(t *testing.T) {
	sets := plantedSets(rand.New(rand.NewPCG(1, 2)), 400)
	for _, th := range []float64{0, 0.3, 0.8} {
		want := bruteForce(sets, th)
		for _, cap := range []int{-1, 3, 40} {
			for _, workers := range []int{1, 3} {
				checkAgainstBrute(t, fmt.Sprintf("planted th=%v cap=%d", th, cap), sets, want,
					Options{Threshold: th, MaxDocFreq: cap, Workers: workers})
			}
		}
	}
}

// TestPairsMatchBruteForceCorpus runs the oracle and brute force on a few hundred
// real documents of each corpus.
func TestPairsMatchBruteForceCorpus(t *testing.T) {
	for _, name := range []string{"reuters21578.tar.gz", "20news-bydate.tar.gz"} {
		sets := Sets(texts(loadCorpus(t, name, 400)), words5)
		for _, th := range []float64{0, 0.5} {
			want := bruteForce(sets, th)
			for _, cap := range []int{0, 2, -1} {
				st := checkAgainstBrute(t, fmt.Sprintf("%s th=%v cap=%d", name, th, cap), sets, want,
					Options{Threshold: th, MaxDocFreq: cap})
				t.Logf("%s threshold %.1f cap %d: %+v", name, th, cap, st)
			}
		}
	}
}

// TestPairsCorpusSlice runs the oracle over a larger slice of Reuters, which holds
// many repeated and corrected stories, and checks a sample of its pairs.
func TestPairsCorpusSlice(t *testing.T) {
	docs := loadCorpus(t, "reuters21578.tar.gz", 6000)
	sets := Sets(texts(docs), words5)
	start := time.Now()
	pairs, st, err := Pairs(sets, Options{Threshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d documents in %v: %+v", len(docs), time.Since(start).Round(time.Millisecond), st)
	hist := map[string]int{}
	for _, p := range pairs {
		hist[fmt.Sprintf("%.1f", math.Floor(p.Resemblance()*10)/10)]++
	}
	t.Logf("pairs by resemblance (lower bin edge): %v", hist)
	if len(pairs) < 50 {
		t.Errorf("only %d pairs with containment >= 0.5 in %d Reuters documents", len(pairs), len(docs))
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 200 {
		p := pairs[r.IntN(len(pairs))]
		if o := lsh.OverlapOf(sets[p.A], sets[p.B]); o != p.Overlap {
			t.Fatalf("pair %s, %s: overlap %+v, exact %+v", docs[p.A].id, docs[p.B].id, p.Overlap, o)
		}
	}
}
