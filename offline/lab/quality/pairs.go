package quality

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Pair is an unordered pair of document ids, normalised so that A < B.
type Pair struct {
	A, B string
}

// MakePair returns the pair of a and b in normal order.
func MakePair(a, b string) Pair {
	if b < a {
		a, b = b, a
	}
	return Pair{a, b}
}

func comparePairs(p, q Pair) int {
	return cmp.Or(strings.Compare(p.A, q.A), strings.Compare(p.B, q.B))
}

// SortPairs normalises every pair, sorts them, and drops repeated pairs and pairs of an
// id with itself, in place; it returns the shortened slice.
func SortPairs(ps []Pair) []Pair {
	ps = slices.DeleteFunc(ps, func(p Pair) bool { return p.A == p.B })
	for i, p := range ps {
		ps[i] = MakePair(p.A, p.B)
	}
	slices.SortFunc(ps, comparePairs)
	return slices.Compact(ps)
}

// ReadPairs reads a whole pair list (see PairScanner), sorted and without repeats. Equal
// ids share one string.
func ReadPairs(r io.Reader) ([]Pair, error) {
	intern := make(map[string]string)
	in := func(s string) string {
		if t, ok := intern[s]; ok {
			return t
		}
		intern[s] = s
		return s
	}
	var ps []Pair
	s := NewPairScanner(r)
	for s.Scan() {
		p := s.Pair()
		ps = append(ps, Pair{in(p.A), in(p.B)})
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return SortPairs(ps), nil
}

// PairCounts is the comparison of our pair list with a reference list. Repeated pairs
// count once.
type PairCounts struct {
	Ours, Theirs int64 // distinct pairs in each list
	OnlyOurs     int64 // pairs in our list only
	OnlyTheirs   int64 // pairs in the reference list only
	Common       int64 // pairs in both
}

// Precision is the share of our pairs the reference has (1 when we have none).
func (c PairCounts) Precision() float64 { return ratio(c.Common, c.Ours) }

// Recall is the share of the reference's pairs we have (1 when it has none).
func (c PairCounts) Recall() float64 { return ratio(c.Common, c.Theirs) }

// F1 is the harmonic mean of Precision and Recall.
func (c PairCounts) F1() float64 { return harmonic(c.Precision(), c.Recall()) }

// ComparePairs counts the pairs of two lists sorted by SortPairs (or ReadPairs), calling
// onlyOurs and onlyTheirs, when not nil, with each one-sided pair in order; a PairWriter's
// Write fits. An error from a callback, or a list out of order, stops the comparison.
func ComparePairs(ours, theirs []Pair, onlyOurs, onlyTheirs func(Pair) error) (PairCounts, error) {
	return merge(sliceSource("ours", ours), sliceSource("theirs", theirs), onlyOurs, onlyTheirs)
}

// CompareStreams is ComparePairs for two pair lists read as they are compared, in
// constant memory. Both must already be sorted, as SortPairs orders them (normalising
// each pair first); repeated pairs are skipped, and a pair out of order is an error
// naming its line.
func CompareStreams(ours, theirs *PairScanner, onlyOurs, onlyTheirs func(Pair) error) (PairCounts, error) {
	return merge(scannerSource("ours", ours), scannerSource("theirs", theirs), onlyOurs, onlyTheirs)
}

func merge(ours, theirs *sortedSource, onlyOurs, onlyTheirs func(Pair) error) (PairCounts, error) {
	var c PairCounts
	a, okA, err := ours.pull()
	if err != nil {
		return c, err
	}
	b, okB, err := theirs.pull()
	for err == nil && (okA || okB) {
		d := 0
		switch {
		case !okB:
			d = -1
		case !okA:
			d = 1
		default:
			d = comparePairs(a, b)
		}
		switch {
		case d < 0:
			c.OnlyOurs++
			err = call(onlyOurs, a)
		case d > 0:
			c.OnlyTheirs++
			err = call(onlyTheirs, b)
		default:
			c.Common++
		}
		if err == nil && d <= 0 {
			a, okA, err = ours.pull()
		}
		if err == nil && d >= 0 {
			b, okB, err = theirs.pull()
		}
	}
	c.Ours, c.Theirs = c.OnlyOurs+c.Common, c.OnlyTheirs+c.Common
	return c, err
}

func call(f func(Pair) error, p Pair) error {
	if f == nil {
		return nil
	}
	return f(p)
}

// sortedSource yields the distinct pairs of a sorted list and rejects disorder.
type sortedSource struct {
	name    string
	next    func() (Pair, bool)
	err     func() error
	where   func() string // position of the last pair, for errors
	prev    Pair
	started bool
}

func sliceSource(name string, ps []Pair) *sortedSource {
	i := 0
	return &sortedSource{
		name: name,
		next: func() (Pair, bool) {
			if i == len(ps) {
				return Pair{}, false
			}
			i++
			return ps[i-1], true
		},
		err:   func() error { return nil },
		where: func() string { return fmt.Sprintf("pair %d", i) },
	}
}

func scannerSource(name string, s *PairScanner) *sortedSource {
	return &sortedSource{
		name: name,
		next: func() (Pair, bool) {
			ok := s.Scan()
			return s.Pair(), ok
		},
		err:   s.Err,
		where: func() string { return fmt.Sprintf("line %d", s.Line()) },
	}
}

func (s *sortedSource) pull() (Pair, bool, error) {
	for {
		p, ok := s.next()
		if !ok {
			if err := s.err(); err != nil {
				return Pair{}, false, fmt.Errorf("quality: compare pairs: %s: %w", s.name, err)
			}
			return Pair{}, false, nil
		}
		if s.started {
			switch c := comparePairs(p, s.prev); {
			case c == 0:
				continue
			case c < 0:
				return Pair{}, false, fmt.Errorf("quality: compare pairs: %s %s: pair %s,%s after %s,%s: not sorted",
					s.name, s.where(), p.A, p.B, s.prev.A, s.prev.B)
			}
		}
		s.prev, s.started = p, true
		return p, true, nil
	}
}
