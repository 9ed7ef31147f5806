package oracle

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// realPairs is the shared fixture of the corpus estimator tests: Reuters and 20
// Newsgroups documents and the oracle's pairs among them with containment ≥ 0.3.
type realPairs struct {
	docs  []doc
	sets  [][]uint64
	pairs []Pair
}

var (
	realOnce sync.Once
	realData realPairs // loaded once: the corpora take seconds to read and clean
	realSkip string
)

func loadRealPairs(t *testing.T) *realPairs {
	t.Helper()
	realOnce.Do(func() {
		defer func() {
			if t.Skipped() {
				realSkip = "corpora not found"
			}
		}()
		docs := loadCorpus(t, "reuters21578.tar.gz", 8000)
		docs = append(docs, loadCorpus(t, "20news-bydate.tar.gz", 4000)...)
		sets := Sets(texts(docs), words5)
		pairs, _, err := Pairs(sets, Options{Threshold: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		realData = realPairs{docs: docs, sets: sets, pairs: pairs}
	})
	if realSkip != "" {
		t.Skip(realSkip)
	}
	if len(realData.pairs) < 200 {
		t.Fatalf("only %d oracle pairs in the corpus slice", len(realData.pairs))
	}
	return &realData
}

// errTally checks estimates of many pairs, each against its own exact value and
// the standard error the maths gives for it, over several seeds: at least 95% of
// the estimates within 3σ, and no bias — the mean signed error within 4 standard
// errors of 0, where the standard error comes from the spread of the per-seed
// means (pairs sharing a document have correlated errors under one seed, so the
// pairs of one seed are not independent samples).
type errTally struct {
	name               string
	n, within, skipped int
	sumAbs             float64
	seedErr, seedN     []float64 // per seed: Σ signed error, count
}

func (s *errTally) seed() {
	s.seedErr, s.seedN = append(s.seedErr, 0), append(s.seedN, 0)
}

func (s *errTally) add(est, exact, sigma float64) {
	if math.IsInf(sigma, 1) {
		s.skipped++
		return
	}
	if len(s.seedErr) == 0 {
		s.seed()
	}
	s.n++
	d := est - exact
	s.seedErr[len(s.seedErr)-1] += d
	s.seedN[len(s.seedN)-1]++
	s.sumAbs += math.Abs(d)
	if math.Abs(d) <= 3*sigma+1e-9 {
		s.within++
	}
}

func (s *errTally) check(t *testing.T) {
	t.Helper()
	if s.n == 0 {
		t.Errorf("%s: no pairs", s.name)
		return
	}
	var means []float64
	for i, e := range s.seedErr {
		if s.seedN[i] > 0 {
			means = append(means, e/s.seedN[i])
		}
	}
	bias, se := meanSE(means)
	n := float64(s.n)
	t.Logf("%-28s %6d estimates, %d seeds: mean |err| %.4f, bias %+.4f (±%.4f), %.1f%% within 3σ, %d without a sample",
		s.name, s.n, len(means), s.sumAbs/n, bias, se, 100*float64(s.within)/n, s.skipped)
	if s.within < s.n*95/100 {
		t.Errorf("%s: only %d/%d estimates within 3σ", s.name, s.within, s.n)
	}
	if len(means) > 1 && math.Abs(bias) > 4*se+1e-4 {
		t.Errorf("%s: mean error %+.4f beyond 4 standard errors %.4f", s.name, bias, se)
	}
}

// meanSE returns the mean of xs and its standard error.
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	if len(xs) < 2 {
		return mean, 0
	}
	return mean, math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
}

func sigmaOf(p float64, n int) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt(p * (1 - p) / float64(n))
}

func decodeSet(b []byte) []uint64 {
	s := make([]uint64, len(b)/8)
	for i := range s {
		s[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return s
}

// sketchAll sketches every document with m.
func sketchAll(t *testing.T, m lsh.Method, docs []doc) ([][]byte, [][]uint64) {
	t.Helper()
	var sc lsh.Scratch
	sks, keys := make([][]byte, len(docs)), make([][]uint64, len(docs))
	for i, d := range docs {
		sks[i], keys[i] = m.Sketch(&sc, d.text, nil, nil)
	}
	return sks, keys
}

func newMethod(t *testing.T, c lsh.Config, v *vocab.Vocabulary) lsh.Method {
	t.Helper()
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// estimatorSeeds is how many seeds the corpus estimator tests average over.
const estimatorSeeds = 8

// TestEstimatorsOnCorpusPairs checks every set sketch's estimates on the oracle's
// real pairs against the bound its maths gives.
func TestEstimatorsOnCorpusPairs(t *testing.T) {
	rp := loadRealPairs(t)
	docs := pairDocs(rp)
	const k = 128
	for _, name := range []string{lsh.MethodMinHash, lsh.MethodOPH, lsh.MethodBottomK, lsh.MethodModM} {
		res := errTally{name: name + " resemblance"}
		ain := errTally{name: name + " containment"}
		for seed := range uint64(estimatorSeeds) {
			m := newMethod(t, lsh.Config{Method: name, Params: lsh.Params{Seed: seed + 1}}, nil)
			sks := sketchSome(m, rp.docs, docs)
			res.seed()
			ain.seed()
			for _, p := range rp.pairs {
				e, err := m.Compare(sks[p.A], sks[p.B])
				if err != nil {
					t.Fatal(err)
				}
				addEstimate(&res, &ain, name, e, p, sks, k, lsh.NewModM(lsh.DefaultModM, lsh.DefaultModMMin, seed+1))
			}
		}
		res.check(t)
		if ain.n > 0 {
			ain.check(t)
		}
	}
}

// addEstimate adds one pair's estimates with the standard errors of its method;
// modm is the modm method's sampler.
func addEstimate(res, ain *errTally, name string, e lsh.Estimate, p Pair, sks [][]byte, k int, modm *lsh.ModM) {
	j := p.Resemblance()
	switch name {
	case lsh.MethodMinHash, lsh.MethodOPH:
		res.add(e.Resemblance, j, sigmaOf(j, min(k, p.SizeA+p.SizeB-p.Inter)))
	case lsh.MethodBottomK:
		res.add(e.Resemblance, j, sigmaOf(j, min(k, p.SizeA+p.SizeB-p.Inter)))
		na, nb := bottomKSample(decodeSet(sks[p.A]), decodeSet(sks[p.B]), k)
		ain.add(e.AinB, p.AinB(), sigmaOf(p.AinB(), na))
		ain.add(e.BinA, p.BinA(), sigmaOf(p.BinA(), nb))
	case lsh.MethodModM:
		// Conditional on the sizes of the union sample U the counts are
		// hypergeometric; a containment withheld (NaN) counts as without a sample.
		o, _ := modm.Overlap(decodeSet(sks[p.A]), decodeSet(sks[p.B]))
		res.add(e.Resemblance, j, sigmaOf(j, o.SizeA+o.SizeB-o.Inter))
		ain.add(e.AinB, p.AinB(), withheld(e.AinB, sigmaOf(p.AinB(), o.SizeA)))
		ain.add(e.BinA, p.BinA(), withheld(e.BinA, sigmaOf(p.BinA(), o.SizeB)))
	}
}

// withheld returns sigma, or +Inf (no sample) for a withheld estimate.
func withheld(est, sigma float64) float64 {
	if math.IsNaN(est) {
		return math.Inf(1)
	}
	return sigma
}

// pairDocs returns the indexes of the documents in some oracle pair.
func pairDocs(rp *realPairs) []int {
	var ds []int
	for _, p := range rp.pairs {
		ds = append(ds, p.A, p.B)
	}
	slices.Sort(ds)
	return slices.Compact(ds)
}

// sketchSome sketches the documents listed; the others get nil.
func sketchSome(m lsh.Method, docs []doc, which []int) [][]byte {
	var sc lsh.Scratch
	sks := make([][]byte, len(docs))
	for _, i := range which {
		sks[i], _ = m.Sketch(&sc, docs[i].text, nil, nil)
	}
	return sks
}

// bottomKSample returns |A_τ| and |B_τ|, the samples the containment estimates of
// two bottom-k sketches rest on: the values below the smaller largest value of a
// full sketch.
func bottomKSample(a, b []uint64, k int) (int, int) {
	tau := uint64(math.MaxUint64)
	if len(a) >= k {
		tau = a[len(a)-1]
	}
	if len(b) >= k {
		tau = min(tau, b[len(b)-1])
	}
	if tau == math.MaxUint64 {
		return len(a), len(b)
	}
	na, _ := slices.BinarySearch(a, tau)
	nb, _ := slices.BinarySearch(b, tau)
	return na, nb
}

// TestFullOnCorpusPairs: the full method is the oracle.
func TestFullOnCorpusPairs(t *testing.T) {
	rp := loadRealPairs(t)
	m := newMethod(t, lsh.Config{Method: lsh.MethodFull}, nil)
	sks, _ := sketchAll(t, m, rp.docs)
	for _, p := range rp.pairs {
		e, err := m.Compare(sks[p.A], sks[p.B])
		if err != nil {
			t.Fatal(err)
		}
		if e.Resemblance != p.Resemblance() || e.AinB != p.AinB() || e.BinA != p.BinA() {
			t.Fatalf("pair %s %s: full %+v, oracle %+v", rp.docs[p.A].id, rp.docs[p.B].id, e, p.Overlap)
		}
	}
}
