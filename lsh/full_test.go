package lsh

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFullMaxKeys: full keys a document by at most full.max_keys of its
// smallest fingerprints and says how many it left out, while its sketch
// keeps every shingle, so Compare stays exact; two long near-copies still
// share keys, and a short document after a long one reports no cut.
func TestFullMaxKeys(t *testing.T) {
	c := Config{Method: MethodFull, Full: FullParams{MaxKeys: 64}, Params: Params{Shingle: 1}}
	c.EnsureDefaults()
	m, err := NewMethod(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Version() != "full-w1-k64" {
		t.Errorf("version %q", m.Version())
	}
	r := rand.New(rand.NewPCG(3, 3))
	a := randomText(r, 6000) // about 1,000 distinct words
	b := append(append([]byte(nil), a[:4500]...), randomText(r, 1500)...)
	var sc Scratch
	skA, keysA := m.Sketch(&sc, a, nil, nil)
	setA := SortedSet(Shingling{Length: 1, Offset: 1}.Append(nil, a))
	if len(keysA) != 64 || sc.KeysCut() != len(setA)-64 || !slices.Equal(keysA, setA[:64]) {
		t.Fatalf("%d keys, %d cut; want the 64 smallest of %d", len(keysA), sc.KeysCut(), len(setA))
	}
	skB, keysB := m.Sketch(&sc, b, nil, nil)
	est, err := m.Compare(skA, skB)
	if err != nil {
		t.Fatal(err)
	}
	setB := SortedSet(Shingling{Length: 1, Offset: 1}.Append(nil, b))
	if want := OverlapOf(setA, setB).Resemblance(); est.Resemblance != want {
		t.Errorf("Compare resemblance %.4f, exact %.4f", est.Resemblance, want)
	}
	shared := 0
	for _, k := range keysB {
		if _, found := slices.BinarySearch(keysA, k); found {
			shared++
		}
	}
	if shared == 0 {
		t.Errorf("near-copies at J=%.2f share none of their 64 keys", est.Resemblance)
	}
	if _, keys := m.Sketch(&sc, []byte("a short page"), nil, nil); len(keys) != 3 || sc.KeysCut() != 0 {
		t.Errorf("short page: %d keys, %d cut; want 3 and 0", len(keys), sc.KeysCut())
	}
	bad := Config{Method: MethodFull, Full: FullParams{MaxKeys: -1}}
	bad.EnsureDefaults()
	if err := bad.Validate(); err == nil {
		t.Error("full.max_keys -1 accepted")
	}
}

func TestSimHashDefaultBlocks(t *testing.T) {
	f := func(d, want int) {
		t.Helper()
		c := Config{Method: MethodSimHash, SimHash: SimHashParams{Distance: d}}
		c.EnsureDefaults()
		if c.SimHash.Blocks != want {
			t.Errorf("distance %d: %d blocks, want %d", d, c.SimHash.Blocks, want)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("distance %d: %v", d, err)
		}
	}
	f(0, 8) // the default distance, 6: 28 tables of 16 bits
	f(1, 2)
	f(3, 4) // the old default layout: 4 tables of 16 bits
	f(5, 7)
	f(6, 8)
	f(10, 12) // 14 blocks would need C(14,10) = 1001 tables, 13 need 286; 12 need 66
	f(15, 17) // C(17,15) = 136 tables
}
