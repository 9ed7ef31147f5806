package lsh

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestShingles(t *testing.T) {
	f := func(text string, w int, want ...string) {
		t.Helper()
		s := testSketcher(t, Params{Shingle: w, Bands: 9, Rows: 13})
		got := s.Shingles(nil, []byte(text))
		var wantFP []uint64
		for _, win := range want {
			wantFP = append(wantFP, xxhash.Sum64String(win))
		}
		if !slices.Equal(got, wantFP) {
			t.Errorf("Shingles(%q, w=%d) = %x, want fingerprints of %q", text, w, got, want)
		}
	}
	f("", 5)
	f("a", 5, "a")
	f("a b c d", 5, "a b c d")
	f("a b c d e", 5, "a b c d e")
	f("a b c d e f", 5, "a b c d e", "b c d e f")
	f("one two three four", 2, "one two", "two three", "three four")
	f("one two three", 1, "one", "two", "three")
	f("x x x x", 2, "x x", "x x", "x x")
	f("privet mir", 3, "privet mir")
	f("привет дорогой мир", 2, "привет дорогой", "дорогой мир")
	// Off-contract spacing: spaces still delimit, empty words count.
	f("a  b", 2, "a ", " b")
	f(" a", 1, "", "a")
}

func TestShinglesAppends(t *testing.T) {
	s := testSketcher(t, Params{Shingle: 2})
	dst := []uint64{42}
	dst = s.Shingles(dst, []byte("a b c"))
	if len(dst) != 3 || dst[0] != 42 {
		t.Fatalf("Shingles did not append: %x", dst)
	}
}

func TestSignatureBasics(t *testing.T) {
	s := testSketcher(t, Params{NumPerm: 130, Bands: 10, Rows: 13}) // not a multiple of 4
	empty := s.Signature(nil, nil)
	if len(empty) != 130 {
		t.Fatalf("len(empty signature) = %d, want 130", len(empty))
	}
	for i, v := range empty {
		if v != math.MaxUint32 {
			t.Fatalf("empty signature[%d] = %d, want MaxUint32", i, v)
		}
	}
	r := rand.New(rand.NewPCG(5, 5))
	x, _ := setPair(r, 300, 300)
	sig := s.Signature(nil, x)
	// Brute-force reference for each permutation.
	for i, p := range s.perms {
		m := uint32(math.MaxUint32)
		for _, v := range x {
			m = min(m, uint32((p.a*v+p.b)>>32))
		}
		if sig[i] != m {
			t.Fatalf("signature[%d] = %d, want %d", i, sig[i], m)
		}
	}
	// Order and duplicates do not matter; capacity is reused.
	y := append(slices.Clone(x), x[:50]...)
	slices.Reverse(y)
	buf := make(Signature, 3, 200)
	if got := s.Signature(buf, y); !slices.Equal(got, sig) || &got[0] != &buf[0] {
		t.Fatal("signature depends on order/duplicates or did not reuse dst")
	}
}

func TestSignatureSeed(t *testing.T) {
	x, _ := setPair(rand.New(rand.NewPCG(6, 6)), 100, 100)
	a := testSketcher(t, Params{Seed: 1}).Signature(nil, x)
	b := testSketcher(t, Params{Seed: 1}).Signature(nil, x)
	c := testSketcher(t, Params{Seed: 2}).Signature(nil, x)
	if !slices.Equal(a, b) {
		t.Error("same seed gave different signatures")
	}
	if Similarity(a, c) > 0.2 {
		t.Errorf("seeds 1 and 2 agree on %.2f of positions; permutations look related", Similarity(a, c))
	}
}

func TestBandKeys(t *testing.T) {
	s := testSketcher(t, Params{NumPerm: 16, Bands: 5, Rows: 3}) // one value unused, odd rows
	sig := make(Signature, 16)
	for i := range sig {
		sig[i] = uint32(i)
	}
	keys := s.BandKeys([]uint64{7}, sig)
	if len(keys) != 6 || keys[0] != 7 {
		t.Fatalf("BandKeys did not append 5 keys: %x", keys)
	}
	keys = keys[1:]
	// Changing one value changes exactly its band's key; the value outside
	// all bands (index 15) changes none.
	for i := range sig {
		other := slices.Clone(sig)
		other[i]++
		changed := s.BandKeys(nil, other)
		for j := range keys {
			if (keys[j] != changed[j]) != (i/3 == j) {
				t.Errorf("changing value %d: band %d key %x → %x", i, j, keys[j], changed[j])
			}
		}
	}
	// Equal rows at different band indexes give different keys.
	same := make(Signature, 16)
	k := s.BandKeys(nil, same)
	if len(slices.Compact(slices.Sorted(slices.Values(k)))) != len(k) {
		t.Errorf("equal rows in different bands collide: %x", k)
	}
}

func TestNewSketcherPanicsOnInvalid(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSketcher accepted zero Params")
		}
	}()
	NewSketcher(Params{})
}

func TestSketcherConcurrent(t *testing.T) {
	s := testSketcher(t, Params{})
	text := randomText(rand.New(rand.NewPCG(7, 7)), 2000)
	want := s.BandKeys(nil, s.Signature(nil, s.Shingles(nil, text)))
	done := make(chan []uint64)
	for range 4 {
		go func() {
			var sh []uint64
			var sig Signature
			var keys []uint64
			for range 20 {
				sh = s.Shingles(sh[:0], text)
				sig = s.Signature(sig, sh)
				keys = s.BandKeys(keys[:0], sig)
			}
			done <- keys
		}()
	}
	for range 4 {
		if got := <-done; !slices.Equal(got, want) {
			t.Error("concurrent use gave different band keys")
		}
	}
}
