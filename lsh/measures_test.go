package lsh

import (
	"testing"
)

func words(s string) []uint64 { return AppendWords(nil, []byte(s)) }

func TestOverlap(t *testing.T) {
	f := func(a, b []uint64, r, ab, ba float64) {
		t.Helper()
		o := OverlapOf(a, b)
		if o.Resemblance() != r || o.AinB() != ab || o.BinA() != ba {
			t.Errorf("%v %v: %v %v %v, want %v %v %v", a, b, o.Resemblance(), o.AinB(), o.BinA(), r, ab, ba)
		}
	}
	f([]uint64{1, 2, 3}, []uint64{2, 3, 4, 5}, 2.0/5, 2.0/3, 2.0/4)
	f([]uint64{1, 2}, []uint64{1, 2, 3, 4}, 0.5, 1, 0.5)
	f(nil, nil, 0, 0, 0)
	f(nil, []uint64{1}, 0, 0, 0)
}
