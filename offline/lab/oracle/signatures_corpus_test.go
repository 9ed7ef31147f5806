package oracle

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/measure"
	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// TestSuperShingleOnCorpusPairs compares the number of oracle pairs sharing a
// mega-shingle with the number the formula 1−(1−p)^6−6p(1−p)^5, p = J^14, expects.
func TestSuperShingleOnCorpusPairs(t *testing.T) {
	rp := loadRealPairs(t)
	m := newMethod(t, lsh.Config{Method: lsh.MethodSuperShingle}, nil)
	sks, keys := sketchAll(t, m, rp.docs)
	var got int
	var want, variance float64
	for _, p := range rp.pairs {
		e, err := m.Compare(sks[p.A], sks[p.B])
		if err != nil {
			t.Fatal(err)
		}
		if shares := shareAny(keys[p.A], keys[p.B]); shares != e.Near {
			t.Fatalf("pair %d,%d: shares a mega-shingle %v, Compare near %v", p.A, p.B, shares, e.Near)
		}
		q := math.Pow(p.Resemblance(), 14)
		prob := 1 - math.Pow(1-q, 6) - 6*q*math.Pow(1-q, 5)
		want += prob
		variance += prob * (1 - prob)
		if e.Near {
			got++
		}
	}
	tol := 4*math.Sqrt(variance) + 2
	t.Logf("%d oracle pairs: %d share a mega-shingle, formula expects %.1f ± %.1f", len(rp.pairs), got, want, tol)
	if math.Abs(float64(got)-want) > tol {
		t.Errorf("%d pairs share a mega-shingle, expected %.1f ± %.1f", got, want, tol)
	}
}

func shareAny(a, b []uint64) bool {
	return slices.ContainsFunc(a, func(x uint64) bool { return slices.Contains(b, x) })
}

// tfCosine is the cosine of the shingle term-frequency vectors of two texts, the
// angle SimHash with shingle features estimates.
func tfCosine(a, b []byte) float64 {
	va := measure.TermFrequencies(nil, words5.Append(nil, a))
	vb := measure.TermFrequencies(nil, words5.Append(nil, b))
	return measure.Cosine(va, vb)
}

// TestSimHashOnCorpus checks, on real text, that fingerprint bits are balanced
// and that the Hamming distance of a pair tracks the angle of its shingle tf
// vectors, d/64 ≈ arccos(cos)/π, for oracle pairs and random pairs alike.
func TestSimHashOnCorpus(t *testing.T) {
	rp := loadRealPairs(t)
	m := newMethod(t, lsh.Config{Method: lsh.MethodSimHash}, nil)
	sks, _ := sketchAll(t, m, rp.docs)
	var ones [64]int
	for _, sk := range sks {
		fp := binary.LittleEndian.Uint64(sk)
		for b := range ones {
			ones[b] += int(fp >> b & 1)
		}
	}
	for b, n := range ones {
		if f := float64(n) / float64(len(sks)); math.Abs(f-0.5) > 0.05 {
			t.Errorf("bit %d set in %.3f of %d real documents, want about 0.5", b, f, len(sks))
		}
	}
	r := rand.New(rand.NewPCG(4, 4))
	pairs := slices.Clone(rp.pairs)
	for range 500 {
		pairs = append(pairs, Pair{A: r.IntN(len(sks)), B: r.IntN(len(sks))})
	}
	s := errTally{name: "simhash d/64 vs θ/π"}
	for _, p := range pairs {
		if p.A == p.B {
			continue
		}
		e, err := m.Compare(sks[p.A], sks[p.B])
		if err != nil {
			t.Fatal(err)
		}
		theta := math.Acos(min(1, tfCosine(rp.docs[p.A].text, rp.docs[p.B].text))) / math.Pi
		s.add(float64(e.Distance)/64, theta, sigmaOf(theta, 64))
	}
	s.check(t)
}

// TestIMatchOnCorpus reports how often I-Match signatures agree for oracle pairs
// by resemblance, and for random pairs; it only asserts that identical texts
// agree and that random pairs rarely do.
func TestIMatchOnCorpus(t *testing.T) {
	rp := loadRealPairs(t)
	var vb vocab.Builder
	for _, d := range rp.docs {
		vb.Add(d.text)
	}
	v := vb.Vocabulary()
	m := newMethod(t, lsh.Config{Method: lsh.MethodIMatch}, v)
	sks, _ := sketchAll(t, m, rp.docs)
	type bin struct{ n, same int }
	bins := map[string]*bin{}
	for _, p := range rp.pairs {
		e, err := m.Compare(sks[p.A], sks[p.B])
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("J>=%.1f", math.Floor(p.Resemblance()*10)/10)
		if bins[key] == nil {
			bins[key] = &bin{}
		}
		bins[key].n++
		if e.Near {
			bins[key].same++
		}
		if slices.Equal(rp.docs[p.A].text, rp.docs[p.B].text) && !e.Near && len(sks[p.A]) > 0 {
			t.Errorf("identical texts %s, %s: signatures differ", rp.docs[p.A].id, rp.docs[p.B].id)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(bins)) {
		t.Logf("imatch %s: %d/%d pairs share the signature", k, bins[k].same, bins[k].n)
	}
	r := rand.New(rand.NewPCG(5, 5))
	false_ := 0
	for range 20000 {
		a, b := r.IntN(len(sks)), r.IntN(len(sks))
		if e, _ := m.Compare(sks[a], sks[b]); a != b && e.Near && lsh.OverlapOf(rp.sets[a], rp.sets[b]).Resemblance() < 0.3 {
			false_++
		}
	}
	t.Logf("imatch: %d of 20000 random pairs with resemblance < 0.3 share the signature", false_)
	if false_ > 20 {
		t.Errorf("%d random dissimilar pairs share an I-Match signature", false_)
	}
}
