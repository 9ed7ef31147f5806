package state

import (
	"errors"
	"reflect"
	"testing"
)

// TestSetKeysMatchAnyPosition: with SetKeys a key matches wherever it stands
// in either document, while a banded store only matches key i against key i.
func TestSetKeysMatchAnyPosition(t *testing.T) {
	f := func(setKeys bool, lookup []uint64, want []uint64) {
		t.Helper()
		s := openMem(t, Options{SetKeys: setKeys})
		put(t, s, doc(1, 10, 20, 30), doc(2, 40, 50), doc(3, 60))
		if got, _ := candidates(t, s, lookup, 10); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("SetKeys %v: Candidates(%v) = %v, want %v", setKeys, lookup, got, want)
		}
	}
	f(true, []uint64{30}, []uint64{1})
	f(true, []uint64{99, 60, 10}, []uint64{1, 3})
	f(true, []uint64{50, 98, 97, 96}, []uint64{2})
	f(false, []uint64{30}, nil)
	f(false, []uint64{99, 60, 10}, nil)
	f(false, []uint64{10, 50}, []uint64{1, 2})
}

// TestSetKeysMany: a set may hold more keys than there are bands (modm and
// full sketches of long documents), on both sides.
func TestSetKeysMany(t *testing.T) {
	modes(t, Options{SetKeys: true}, func(t *testing.T, s *Store) {
		keys := make([]uint64, 3*MaxBands)
		for i := range keys {
			keys[i] = uint64(1000 + i)
		}
		put(t, s, doc(1, keys...), doc(2, keys[len(keys)-1]+1))
		look := []uint64{1, 2, 3, keys[len(keys)-1]} // the match is past the first MaxBands keys
		for len(look) < 2*MaxBands {
			look = append([]uint64{uint64(len(look) + 5)}, look...)
		}
		if got, _ := candidates(t, s, look, 3); !reflect.DeepEqual(got, []uint64{1}) {
			t.Errorf("Candidates = %v, want [1]", got)
		}
		if got, _ := candidates(t, s, look, 1); len(got) != 0 {
			t.Errorf("Candidates before 1 = %v, want none", got)
		}
	})
	s := openMem(t, Options{})
	err := s.Put([]Doc{doc(1, make([]uint64, MaxBands+1)...)})
	if err == nil {
		t.Error("a banded store took more than MaxBands band keys")
	}
}

// TestSetKeysCaps: MaxBucket and MaxCandidates bound set-key lookups as they
// do band lookups, keeping the documents that share the most keys, then the
// earliest.
func TestSetKeysCaps(t *testing.T) {
	s := openMem(t, Options{SetKeys: true, MaxBucket: 3, MaxCandidates: 4})
	for seq := uint64(1); seq <= 6; seq++ {
		put(t, s, doc(seq, 7, 100+seq)) // key 7 is shared by all: a hot bucket
	}
	got, capped := candidates(t, s, []uint64{7}, 10)
	if !reflect.DeepEqual(got, []uint64{1, 2, 3}) || capped.Buckets != 1 {
		t.Errorf("hot bucket: %v %+v, want [1 2 3], 1 bucket cut", got, capped)
	}
	got, capped = candidates(t, s, []uint64{7, 104, 105, 106}, 10)
	if !reflect.DeepEqual(got, []uint64{1, 2, 3, 4}) || !capped.Candidates {
		t.Errorf("many buckets: %v %+v, want the 4 earliest and a candidate cap", got, capped)
	}
	// A late document sharing three keys outranks the hot bucket's crowd
	// that shares one; the rest of the cap goes to the earliest of those.
	put(t, s, doc(7, 7, 200, 201, 202))
	got, capped = candidates(t, s, []uint64{7, 104, 105, 200, 201, 202}, 10)
	if !reflect.DeepEqual(got, []uint64{1, 2, 3, 7}) || !capped.Candidates {
		t.Errorf("best match: %v %+v, want [1 2 3 7] and a candidate cap", got, capped)
	}
	got, _ = candidates(t, s, []uint64{106}, 6)
	if len(got) != 0 {
		t.Errorf("before 6: %v, want none", got)
	}
}

// TestSetKeysSurviveReopen: set postings, rebuilt from the markers, find
// the same candidates after a restart.
func TestSetKeysSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	o := Options{SetKeys: true, SketchVersion: "modm25-w5"}
	s := openDisk(t, dir, o)
	put(t, s, doc(1, 5, 6), doc(2, 6, 7))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, o)
	if got, _ := candidates(t, s, []uint64{9, 7}, 5); !reflect.DeepEqual(got, []uint64{2}) {
		t.Errorf("after reopen: %v, want [2]", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	o.SketchVersion = "minhash128-b16r8-w5"
	o.Dir = dir
	var mismatch *SketchMismatchError
	if _, err := Open(o); !errors.As(err, &mismatch) {
		t.Errorf("open with another sketch: %v, want a SketchMismatchError", err)
	}
}
