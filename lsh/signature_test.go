package lsh

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

func TestSignatureEncoding(t *testing.T) {
	sig := Signature{0, 1, 0x01020304, math.MaxUint32}
	b := sig.AppendBinary([]byte{0xee})
	want := []byte{0xee, 0, 0, 0, 0, 1, 0, 0, 0, 4, 3, 2, 1, 0xff, 0xff, 0xff, 0xff}
	if !bytes.Equal(b, want) {
		t.Fatalf("AppendBinary = %x, want %x", b, want)
	}
	dst := make(Signature, 0, 8)
	got, err := DecodeSignature(dst, b[1:])
	if err != nil || !slices.Equal(got, sig) || &got[:1][0] != &dst[:1][0] {
		t.Fatalf("DecodeSignature = %v, %v; want %v reusing dst", got, err, sig)
	}
	if got, err := DecodeSignature(nil, nil); err != nil || len(got) != 0 {
		t.Fatalf("DecodeSignature(empty) = %v, %v", got, err)
	}
}

func TestDecodeSignatureError(t *testing.T) {
	f := func(n int, want string) {
		t.Helper()
		_, err := DecodeSignature(nil, make([]byte, n))
		if err == nil || err.Error() != want {
			t.Errorf("DecodeSignature(%d bytes) error = %v, want %q", n, err, want)
		}
	}
	f(7, "lsh: signature length 7 is not a multiple of 4")
	f(1, "lsh: signature length 1 is not a multiple of 4")
	f(514, "lsh: signature length 514 is not a multiple of 4")
}

func TestSimilarity(t *testing.T) {
	const e = math.MaxUint32
	f := func(a, b Signature, want float64) {
		t.Helper()
		if got := Similarity(a, b); got != want {
			t.Errorf("Similarity(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
	f(nil, nil, 0)
	f(Signature{1, 2, 3, 4}, Signature{1, 2, 3, 4}, 1)
	f(Signature{1, 2, 3, 4}, Signature{1, 2, 0, 0}, 0.5)
	f(Signature{1, 2, 3, 4}, Signature{5, 6, 7, 8}, 0)
	f(Signature{1, 2, 3}, Signature{1, 2, 3, 4}, 0)
	f(Signature{e, e, e, e}, Signature{e, e, e, e}, 0)
	f(Signature{e, 2, 3, 4}, Signature{e, 2, 3, 5}, 0.5)
}

func TestJaccard(t *testing.T) {
	f := func(a, b []uint64, want float64) {
		t.Helper()
		ca, cb := slices.Clone(a), slices.Clone(b)
		if got := Jaccard(a, b); got != want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", a, b, got, want)
		}
		if !slices.Equal(a, ca) || !slices.Equal(b, cb) {
			t.Errorf("Jaccard modified its inputs")
		}
	}
	f(nil, nil, 0)
	f([]uint64{1}, nil, 0)
	f([]uint64{1, 2, 3}, []uint64{3, 2, 1}, 1)
	f([]uint64{3, 1, 2, 1, 1}, []uint64{2, 3, 4, 4}, 0.5)
	f([]uint64{1, 2}, []uint64{3, 4}, 0)
	f([]uint64{5, 1, 2, 3}, []uint64{1, 2, 3, 4}, 0.6)
}

func TestContentHash(t *testing.T) {
	a, b := ContentHash([]byte("a b c")), ContentHash([]byte("a b c"))
	if a != b || a == ContentHash([]byte("a b d")) || a == ContentHash(nil) {
		t.Error("ContentHash is not a fingerprint of the text")
	}
}
