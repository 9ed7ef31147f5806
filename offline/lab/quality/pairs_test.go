package quality

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func scanAll(in string) ([]Pair, error) {
	var out []Pair
	s := NewPairScanner(strings.NewReader(in))
	for s.Scan() {
		out = append(out, s.Pair())
	}
	return out, s.Err()
}

func TestPairScanner(t *testing.T) {
	f := func(name, in, want string) {
		t.Helper()
		t.Run(name, func(t *testing.T) {
			got, err := scanAll(in)
			if err != nil {
				t.Fatal(err)
			}
			if s := fmt.Sprint(got); s != want {
				t.Errorf("pairs %s, want %s", s, want)
			}
		})
	}
	f("csv with header", "id_a,id_b\nb,a\n\nc , d\n", "[{a b} {c d}]")
	f("quoted", `"x,1","say ""hi"""`+"\n", `[{say "hi" x,1}]`)
	f("tsv with similarity", "b\ta\t0.93\n", "[{a b}]")
	f("spaces", "  q p  \n", "[{p q}]")
	f("header only first", "a,b\nid_a,id_b\n", "[{a b} {id_a id_b}]")
	f("crlf", "a,b\r\nc,d\r\n", "[{a b} {c d}]")
}

func TestPairScannerErrors(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		_, err := scanAll(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("scan %q: error %v, want one containing %q", in, err, want)
		}
	}
	f("a,b\nc\n", "line 2: want two ids")
	f("a,b\nc,c\n", `line 2: id "c" paired with itself`)
	f(`"a,b`, "line 1: unterminated quote")
	f(`"a"x,b`, "line 1: text after a closing quote")
	f("a,\n", "line 1: want two ids")
}

func TestPairWriterRoundTrip(t *testing.T) {
	pairs := []Pair{{"b", "a"}, {"x,1", `say "hi"`}, {" lead", "trail "}, {"tab\there", "id_b"}}
	var sb strings.Builder
	w := NewPairWriter(&sb)
	for _, p := range pairs {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := scanAll(sb.String())
	if err != nil {
		t.Fatalf("%v in\n%s", err, sb.String())
	}
	for i := range pairs {
		pairs[i] = MakePair(pairs[i].A, pairs[i].B)
	}
	if !slices.Equal(got, pairs) {
		t.Errorf("read back %q, want %q from\n%s", got, pairs, sb.String())
	}
}

func TestComparePairs(t *testing.T) {
	// Ours a-b, a-c, b-c (and a-b again, reversed); theirs a-b, c-d.
	// Common: a-b. Only ours: a-c, b-c. Only theirs: c-d.
	ours := SortPairs([]Pair{{"a", "b"}, {"c", "b"}, {"a", "c"}, {"b", "a"}, {"z", "z"}})
	theirs, err := ReadPairs(strings.NewReader("id_a,id_b\nb,a\nd,c\n"))
	if err != nil {
		t.Fatal(err)
	}
	var onlyOurs, onlyTheirs strings.Builder
	wo, wt := NewPairWriter(&onlyOurs), NewPairWriter(&onlyTheirs)
	got, err := ComparePairs(ours, theirs, wo.Write, wt.Write)
	if err != nil {
		t.Fatal(err)
	}
	if err := wo.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := wt.Flush(); err != nil {
		t.Fatal(err)
	}
	want := PairCounts{Ours: 3, Theirs: 2, OnlyOurs: 2, OnlyTheirs: 1, Common: 1}
	if got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
	if s := onlyOurs.String(); s != "id_a,id_b\na,c\nb,c\n" {
		t.Errorf("only ours:\n%s", s)
	}
	if s := onlyTheirs.String(); s != "id_a,id_b\nc,d\n" {
		t.Errorf("only theirs:\n%s", s)
	}

	// The same lists streamed, with a repeat in ours.
	so := NewPairScanner(strings.NewReader("a,b\na,b\na,c\nb,c\n"))
	st := NewPairScanner(strings.NewReader("id_a,id_b\na,b\nc,d\n"))
	if got, err := CompareStreams(so, st, nil, nil); err != nil || got != want {
		t.Errorf("streams: %+v, %v; want %+v", got, err, want)
	}
}

func TestCompareStreamsUnsorted(t *testing.T) {
	so := NewPairScanner(strings.NewReader("a,b\nb,c\na,c\n"))
	st := NewPairScanner(strings.NewReader(""))
	_, err := CompareStreams(so, st, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "ours line 3: pair a,c after b,c: not sorted") {
		t.Errorf("error %v", err)
	}
	so = NewPairScanner(strings.NewReader("a,b\n"))
	st = NewPairScanner(strings.NewReader("a,b\nc\n"))
	if _, err := CompareStreams(so, st, nil, nil); err == nil || !strings.Contains(err.Error(), "theirs: line 2") {
		t.Errorf("error %v", err)
	}
}

// TestPropertyComparePairs checks the merge against sets.
func TestPropertyComparePairs(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 6))
		gen := func() ([]Pair, map[Pair]bool) {
			var ps []Pair
			set := map[Pair]bool{}
			for range rng.IntN(60) {
				a, b := fmt.Sprint(rng.IntN(12)), fmt.Sprint(rng.IntN(12))
				ps = append(ps, Pair{a, b})
				if a != b {
					set[MakePair(a, b)] = true
				}
			}
			return SortPairs(ps), set
		}
		ours, os := gen()
		theirs, ts := gen()
		var want PairCounts
		for p := range os {
			if ts[p] {
				want.Common++
			} else {
				want.OnlyOurs++
			}
		}
		want.OnlyTheirs = int64(len(ts)) - want.Common
		want.Ours, want.Theirs = int64(len(os)), int64(len(ts))
		var gotOnly []Pair
		got, err := ComparePairs(ours, theirs, func(p Pair) error { gotOnly = append(gotOnly, p); return nil }, nil)
		if err != nil || got != want {
			t.Errorf("seed %d: %+v, %v; want %+v", seed, got, err, want)
		}
		for _, p := range gotOnly {
			if !os[p] || ts[p] {
				t.Errorf("seed %d: %v reported only ours", seed, p)
			}
		}
	}
}

func FuzzPairScanner(f *testing.F) {
	f.Add("id_a,id_b\na,b\n")
	f.Add(`"x,1","say ""hi"""` + "\n" + "b\ta\t0.5\n")
	f.Add("p q\n")
	f.Fuzz(func(t *testing.T, in string) {
		s := NewPairScanner(strings.NewReader(in))
		for s.Scan() {
			p := s.Pair()
			if p.A == "" || p.B == "" || p.A >= p.B {
				t.Fatalf("line %d: pair %q not normalised", s.Line(), p)
			}
		}
		if s.Err() == nil && s.Pair() != (Pair{}) {
			t.Fatal("Pair not cleared at the end")
		}
	})
}

func FuzzPairRoundTrip(f *testing.F) {
	f.Add("a", "b")
	f.Add(" x,1", `say "hi"`+"\t")
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" || a == b || strings.ContainsAny(a+b, "\r\n") {
			t.Skip("not a pair a PairScanner can hold")
		}
		var sb strings.Builder
		w := NewPairWriter(&sb)
		if err := w.Write(Pair{a, b}); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		got, err := scanAll(sb.String())
		if err != nil || len(got) != 1 || got[0] != MakePair(a, b) {
			t.Fatalf("read back %q, %v from %q", got, err, sb.String())
		}
	})
}
