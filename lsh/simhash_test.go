package lsh

import (
	"bytes"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// sharesKey reports whether two key lists of the same layout agree at some
// table.
func sharesKey(a, b []uint64) bool {
	for i := range a {
		if a[i] == b[i] {
			return true
		}
	}
	return false
}

// flipSpread flips one bit in each of the first n blocks of the layout.
func flipSpread(r *rand.Rand, fp uint64, blocks []uint64, n int) uint64 {
	for _, m := range blocks[:n] {
		w := bits.OnesCount64(m)
		fp ^= 1 << (bits.TrailingZeros64(m) + r.IntN(w))
	}
	return fp
}

// TestSimHashKeysPigeonhole checks that every pair within k bits shares a
// key of SimHashKeys, with random and adversarial (one flip per block)
// pairs, and that k+1 flips spread one per block share none — the layout
// is tight, so the test would catch an off-by-one in the blocks.
func TestSimHashKeysPigeonhole(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, k := range []int{3, 5, 10, 15} {
		blocks := blockMasks(k + 1)
		for trial := range 20000 {
			fp := r.Uint64()
			var near uint64
			if trial%2 == 0 {
				near = fp
				for _, b := range r.Perm(64)[:r.IntN(k+1)] {
					near ^= 1 << b
				}
			} else {
				near = flipSpread(r, fp, blocks, k)
			}
			if d := Hamming(fp, near); d > k {
				t.Fatalf("built a pair at distance %d > %d", d, k)
			}
			if !sharesKey(SimHashKeys(fp, k), SimHashKeys(near, k)) {
				t.Fatalf("k=%d: %016x and %016x (distance %d) share no key", k, fp, near, Hamming(fp, near))
			}
		}
		for range 1000 {
			fp := r.Uint64()
			far := fp
			for _, m := range blocks {
				far ^= 1 << bits.TrailingZeros64(m)
			}
			if sharesKey(SimHashKeys(fp, k), SimHashKeys(far, k)) {
				t.Fatalf("k=%d: distance %d with a flip in every block shares a key", k, Hamming(fp, far))
			}
		}
	}
}

func TestSimHashIndexLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ k, blocks, tables int }{{3, 4, 4}, {3, 6, 20}, {5, 8, 56}, {10, 12, 66}, {0, 1, 1}} {
		x, err := NewSimHashIndex(c.k, c.blocks)
		if err != nil {
			t.Fatal(err)
		}
		if x.Tables() != c.tables || SimHashTables(c.k, c.blocks) != c.tables {
			t.Errorf("k=%d blocks=%d: %d tables, want %d", c.k, c.blocks, x.Tables(), c.tables)
		}
		bm := blockMasks(c.blocks)
		for trial := range 5000 {
			fp := r.Uint64()
			near := fp
			if trial%2 == 0 {
				for _, b := range r.Perm(64)[:c.k] {
					near ^= 1 << b
				}
			} else {
				p := r.Perm(c.blocks)
				sh := make([]uint64, c.k)
				for i := range sh {
					sh[i] = bm[p[i]]
				}
				near = flipSpread(r, fp, sh, c.k)
			}
			if !sharesKey(x.AppendKeys(nil, fp), x.AppendKeys(nil, near)) {
				t.Fatalf("k=%d blocks=%d: distance %d shares no key", c.k, c.blocks, Hamming(fp, near))
			}
		}
	}
	if _, err := NewSimHashIndex(15, 40); err == nil {
		t.Error("C(40,15) tables: no error")
	}
}

// TestSimHashKeysDistinctAcrossTables checks that equal block values in
// different tables give different keys, so keys may be matched as a set.
func TestSimHashKeysDistinctAcrossTables(t *testing.T) {
	keys := SimHashKeys(0, 7)
	seen := map[uint64]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Fatal("two tables gave the same key for an all-zero fingerprint")
		}
		seen[k] = true
	}
}

// naiveWordHash is the kind of feature hash that unbalances SimHash: a
// polynomial string hash (Java's hashCode widened to 64 bits). A 5-letter
// word reaches only about 30 bits, so the high bits are always 0.
func naiveWordHash(w []byte) uint64 {
	var h uint64
	for _, c := range w {
		h = 31*h + uint64(c)
	}
	return h
}

// bitFrequencies returns, per bit, the share of fingerprints with it set.
func bitFrequencies(fps []uint64) [64]float64 {
	var f [64]float64
	for _, fp := range fps {
		for b := range f {
			f[b] += float64(fp >> b & 1)
		}
	}
	for b := range f {
		f[b] /= float64(len(fps))
	}
	return f
}

// stuckBits counts the bits set in under 2% or over 98% of fps.
func stuckBits(fps []uint64) int {
	n := 0
	for _, f := range bitFrequencies(fps) {
		if f < 0.02 || f > 0.98 {
			n++
		}
	}
	return n
}

// naiveSimHash sums ±1 over the naive hashes of the features.
func naiveSimHash(features [][]byte) uint64 {
	var sums [64]int
	for _, f := range features {
		h := naiveWordHash(f)
		for b := range sums {
			sums[b] += int(h>>b&1)*2 - 1
		}
	}
	var fp uint64
	for b, v := range sums {
		if v > 0 {
			fp |= 1 << b
		}
	}
	return fp
}

// TestSimHashFeatureBits checks the feature hashes themselves: over the
// distinct words of Zipf prose every bit of ours is set for half the words,
// while the naive hash leaves the high bits of short words at 0.
func TestSimHashFeatureBits(t *testing.T) {
	text := zipfText(rand.New(rand.NewPCG(8, 7)), 200<<10)
	seen := map[string]bool{}
	var naive, ours []uint64
	s := NewSimHash(1)
	for _, w := range splitWords(text) {
		if !seen[string(w)] {
			seen[string(w)] = true
			naive = append(naive, naiveWordHash(w))
			ours = append(ours, mix64(AppendWords(nil, w)[0]^s.key))
		}
	}
	sigma := 0.5 / math.Sqrt(float64(len(ours)))
	for b, f := range bitFrequencies(ours) {
		if math.Abs(f-0.5) > 4*sigma {
			t.Errorf("bit %d set in %.3f of %d word hashes, want 0.5 ± %.3f", b, f, len(ours), 4*sigma)
		}
	}
	if n := stuckBits(naive); n < 32 {
		t.Errorf("naive word hash: only %d stuck bits; the test no longer shows the bias", n)
	}
}

// TestSimHashBalancedBits shows the naive-summing bias on whole
// fingerprints and that these fingerprints do not have it: over 2000
// documents of Zipf prose, with 5-word shingles as features, summing naive
// hashes gives bits that are 0 (or 1) in nearly every document, while every
// bit of ours is set in about half of them.
//
// With single words as tf-weighted features the commonest words outweigh
// the rest in every document, so fingerprints agree on most bits whatever
// the hash; idf weights remove that (the second half of the test), which is
// why simhash.words is best used with simhash.idf.
func TestSimHashBalancedBits(t *testing.T) {
	const docs = 2000
	r := rand.New(rand.NewPCG(8, 8))
	s := NewSimHash(1)
	sh := Shingling{Length: 5, Offset: 1}
	v := testVocabulary(500)
	var naive, ours, words, idf []uint64
	for range docs {
		text := zipfText(r, 3<<10)
		ws := splitWords(text)
		var shingles [][]byte
		for i := 0; i+5 <= len(ws); i++ {
			shingles = append(shingles, bytes.Join(ws[i:i+5], []byte(" ")))
		}
		naive = append(naive, naiveSimHash(shingles))
		ours = append(ours, s.Fingerprint(sh.Append(nil, text)))
		wfp := AppendWords(nil, text)
		words = append(words, s.Fingerprint(wfp))
		wt := make([]float64, len(wfp))
		for i, w := range wfp {
			wt[i] = v.IDF(w)
		}
		idf = append(idf, s.Weighted(wfp, wt))
	}
	t.Logf("stuck bits: naive shingles %d, ours shingles %d, ours words tf %d, ours words tf-idf %d",
		stuckBits(naive), stuckBits(ours), stuckBits(words), stuckBits(idf))
	if n := stuckBits(naive); n < 8 {
		t.Errorf("naive hash: only %d stuck bits; the test no longer shows the bias", n)
	}
	// Per bit the share is binomial(docs, 1/2) only if fingerprints of
	// different documents were independent; they share common shingles, so
	// allow 0.5 ± 0.06 rather than ±4σ = 0.045.
	for b, f := range bitFrequencies(ours) {
		if math.Abs(f-0.5) > 0.06 {
			t.Errorf("bit %d set in %.3f of fingerprints, want about 0.5", b, f)
		}
	}
	if n := stuckBits(idf); n != 0 {
		t.Errorf("idf-weighted words: %d stuck bits", n)
	}
}

func splitWords(text []byte) [][]byte {
	var ws [][]byte
	for lo, i := 0, 0; i <= len(text); i++ {
		if i == len(text) || text[i] == ' ' {
			ws = append(ws, text[lo:i])
			lo = i + 1
		}
	}
	return ws
}

func TestSimHashWeighted(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	s := NewSimHash(3)
	feats, _ := setPair(r, 300, 300)
	ones := make([]float64, len(feats))
	for i := range ones {
		ones[i] = 1
	}
	if s.Weighted(feats, ones) != s.Fingerprint(feats) {
		t.Error("Weighted with unit weights differs from Fingerprint")
	}
	// One feature repeated with a huge weight dominates every bit.
	ones[0] = 1e9
	if got, want := s.Weighted(feats, ones), s.Fingerprint(feats[:1]); got != want {
		t.Errorf("a dominant feature: fingerprint %016x, want its own hash's signs %016x", got, want)
	}
}
