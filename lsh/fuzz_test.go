package lsh

import (
	"bytes"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func FuzzDecodeSignature(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(Signature{0, 1, 1 << 31}.AppendBinary(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		sig, err := DecodeSignature(nil, b)
		if len(b)%4 != 0 {
			if err == nil {
				t.Fatalf("no error for %d bytes", len(b))
			}
			return
		}
		if err != nil {
			t.Fatalf("error for %d bytes: %v", len(b), err)
		}
		if len(sig) != len(b)/4 || !bytes.Equal(sig.AppendBinary(nil), b) {
			t.Fatalf("round trip of %x gave %x", b, sig.AppendBinary(nil))
		}
	})
}

func FuzzShingles(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog"), uint8(5))
	f.Add([]byte("a b"), uint8(1))
	f.Add([]byte(""), uint8(3))
	f.Add([]byte("  double  spaces "), uint8(2))
	f.Add([]byte("съешь же ещё этих мягких французских булок"), uint8(64))
	base := Params{}
	base.EnsureDefaults()
	f.Fuzz(func(t *testing.T, text []byte, w uint8) {
		p := base
		p.Shingle = 1 + int(w)%MaxShingle
		got := NewSketcher(p).Shingles(nil, text)
		if len(text) == 0 {
			if len(got) != 0 {
				t.Fatalf("empty text gave %d shingles", len(got))
			}
			return
		}
		words := bytes.Split(text, []byte(" "))
		var want []uint64
		for i := 0; i+p.Shingle <= len(words); i++ {
			want = append(want, xxhash.Sum64(bytes.Join(words[i:i+p.Shingle], []byte(" "))))
		}
		if len(words) < p.Shingle {
			want = append(want, xxhash.Sum64(text))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Shingles(%q, w=%d): %d fingerprints, want %d (%d words)",
				text, p.Shingle, len(got), len(want), len(words))
		}
	})
}
