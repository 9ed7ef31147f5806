package lsh

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestContainMethod checks sketch.contain at fixed seeds on pages whose containment is
// known: a run of L words taken from a 3 KB page of random words (containment 1) and an
// unrelated page. The resemblance and Near are the inner method's, untouched; the small
// page's estimated containment in the large one is exactly 1 whenever it is made
// (every sampled value of a page wholly inside another is in the other's sample) and
// otherwise withheld (NaN, too few sampled values); the two share an index key
// as often as the key scheme promises (see below); and no containment of an unrelated
// page reaches 0.5.
func TestContainMethod(t *testing.T) {
	for _, name := range []string{MethodMinHash, MethodOPH} {
		m := testMethod(t, name, Config{Contain: true}, nil).(*containMethod)
		for _, words := range []int{60, 120, 240} {
			shared, withheld := 0, 0
			const trials = 100
			for trial := range trials {
				r := rand.New(rand.NewPCG(uint64(words), uint64(trial)))
				large := strings.Fields(string(randomText(r, 3<<10)))
				at := r.IntN(len(large) - words)
				small := []byte(strings.Join(large[at:at+words], " "))
				other := randomText(r, 3<<10)
				var sc Scratch
				sl, kl := m.Sketch(&sc, []byte(strings.Join(large, " ")), nil, nil)
				ss, ks := m.Sketch(&sc, small, nil, nil)
				so, _ := m.Sketch(&sc, other, nil, nil)
				e, err := m.Compare(ss, sl)
				if err != nil {
					t.Fatal(err)
				}
				il, _, _ := splitTwo(sl)
				is, _, _ := splitTwo(ss)
				ie, _ := m.inner.Compare(is, il)
				if e.Resemblance != ie.Resemblance || e.Near != ie.Near || !e.Containment {
					t.Fatalf("%s: %+v, inner method %+v", m.Version(), e, ie)
				}
				if math.IsNaN(e.AinB) {
					withheld++
				} else if e.AinB != 1 {
					t.Fatalf("%s, %d words inside: estimated containment %.3f, want 1", m.Version(), words, e.AinB)
				}
				if sharesAnyKey(ks, kl) {
					shared++
				}
				u, err := m.Compare(ss, so)
				if err != nil || u.AinB >= 0.5 || u.BinA >= 0.5 {
					t.Fatalf("%s: unrelated pages estimated %+v (%v)", m.Version(), u, err)
				}
			}
			t.Logf("%s, %d words inside a 3 KB page: share a key in %d of %d trials, containment withheld in %d",
				m.Version(), words, shared, trials, withheld)
			// They share no key when the small page has no value ≡ 0 (mod 25) and none of
			// the large page's 4 smallest values (it is short: it keys them) is in it.
			n := float64(words - 4) // shingles of the small page
			miss := math.Exp(-n/containM) * math.Pow(1-n/475, containKeys)
			want := trials*(1-miss) - 4*math.Sqrt(trials*miss*(1-miss))
			if float64(shared) < want {
				t.Errorf("%s, %d words: share a key in %d of %d trials, want ≥ %.1f", m.Version(), words, shared, trials, want)
			}
		}
	}
}

// TestContainGolden is the containment case for the default method: a small page
// (bees.txt, about 120 shingles) arriving after a larger page that quotes it whole
// between two unrelated paragraphs (bridge.txt and another). minhash alone calls the
// pair neither near nor contained; with sketch.contain the small page is contained in
// the larger one, at every one of 20 seeds.
func TestContainGolden(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../testdata/runs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	norm := func(s string) []byte {
		s = strings.ToLower(strings.NewReplacer(".", "", ",", "").Replace(s))
		return []byte(strings.Join(strings.Fields(s), " "))
	}
	bees, bridge := read("bees.txt"), read("bridge.txt")
	small := norm(bees)
	large := norm(bridge + " " + bees + " After the inspection the council met to discuss the report " +
		"and agreed to ask the engineers for a cost estimate before the autumn budget meeting.")
	for seed := range uint64(20) {
		for _, contain := range []bool{false, true} {
			m := testMethod(t, MethodMinHash, Config{Contain: contain, Params: Params{Seed: seed + 1}}, nil)
			var sc Scratch
			sl, kl := m.Sketch(&sc, large, nil, nil)
			ss, ks := m.Sketch(&sc, small, nil, nil)
			e, err := m.Compare(ss, sl)
			if err != nil {
				t.Fatal(err)
			}
			contained := e.Containment && e.AinB >= DefaultContainment
			if e.Near || contained != contain || contain && !sharesAnyKey(ks, kl) {
				t.Errorf("%s: small page after a larger one quoting it: %+v, share a key %v; want contained %v",
					m.Version(), e, sharesAnyKey(ks, kl), contain)
			}
		}
	}
}

// sharesAnyKey reports whether two key sets have a key in common.
func sharesAnyKey(a, b []uint64) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
