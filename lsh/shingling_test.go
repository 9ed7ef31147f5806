package lsh

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// refShingles is the obvious implementation of Shingling.Append: split into
// words (or runes, as utf8.DecodeRune cuts them), join each window, keep
// every offset-th.
func refShingles(s Shingling, text []byte) []uint64 {
	if len(text) == 0 {
		return nil
	}
	sep := []byte(" ")
	units := bytes.Split(text, sep)
	if s.Chars {
		sep, units = nil, nil
		for i := 0; i < len(text); {
			_, n := utf8.DecodeRune(text[i:])
			units = append(units, text[i:i+n])
			i += n
		}
	}
	var out []uint64
	for i := 0; i+s.Length <= len(units); i++ {
		if i%s.Offset == 0 {
			out = append(out, xxhash.Sum64(bytes.Join(units[i:i+s.Length], sep)))
		}
	}
	if len(units) < s.Length {
		out = append(out, xxhash.Sum64(text))
	}
	return out
}

func TestShinglingMatchesSketcher(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, w := range []int{1, 2, 5, 9} {
		s := testSketcher(t, Params{Shingle: w})
		sh := Shingling{Length: w, Offset: 1}
		for range 50 {
			text := randomText(r, r.IntN(400))
			if got, want := sh.Append(nil, text), s.Shingles(nil, text); !slices.Equal(got, want) {
				t.Fatalf("w=%d: Shingling.Append differs from Sketcher.Shingles on %q", w, text)
			}
		}
	}
}

func TestShinglingOffset(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, chars := range []bool{false, true} {
		for _, k := range []int{2, 3, 7} {
			text := randomText(r, 2000)
			all := Shingling{Length: 4, Offset: 1, Chars: chars}.Append(nil, text)
			got := Shingling{Length: 4, Offset: k, Chars: chars}.Append(nil, text)
			var want []uint64
			for i, x := range all {
				if i%k == 0 {
					want = append(want, x)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("chars=%v offset %d: %d shingles, want every %d-th of %d", chars, k, len(got), k, len(all))
			}
		}
	}
}

func TestCharGrams(t *testing.T) {
	f := func(text string, n int, want ...string) {
		t.Helper()
		got := Shingling{Length: n, Offset: 1, Chars: true}.Append(nil, []byte(text))
		var w []uint64
		for _, s := range want {
			w = append(w, xxhash.Sum64String(s))
		}
		if !slices.Equal(got, w) {
			t.Errorf("%q n=%d: got %d grams, want %q", text, n, len(got), want)
		}
	}
	f("abcd", 3, "abc", "bcd")
	f("ab c", 2, "ab", "b ", " c")
	f("ёжик", 2, "ёж", "жи", "ик")
	f("ab", 3, "ab")
	f("", 3)
	f("съешь", 5, "съешь")
}

func FuzzShingling(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(5), uint8(1), false)
	f.Add([]byte("a b"), uint8(1), uint8(3), false)
	f.Add([]byte("съешь же ещё этих мягких"), uint8(4), uint8(2), true)
	f.Add([]byte("\xff\xfe a\x80b"), uint8(2), uint8(1), true)
	f.Add([]byte("  double  spaces "), uint8(2), uint8(2), false)
	f.Fuzz(func(t *testing.T, text []byte, n, off uint8, chars bool) {
		s := Shingling{Length: 1 + int(n)%MaxShingle, Offset: 1 + int(off)%9, Chars: chars}
		if got, want := s.Append(nil, text), refShingles(s, text); !slices.Equal(got, want) {
			t.Fatalf("%+v on %q: %d fingerprints, want %d", s, text, len(got), len(want))
		}
	})
}
