package measure

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/vocab"
)

func words(s string) []uint64 { return lsh.AppendWords(nil, []byte(s)) }

func TestWeightedJaccardAndCosine(t *testing.T) {
	tf := func(s string) TermVector { return TermFrequencies(nil, words(s)) }
	f := func(a, b string, wj, cos float64) {
		t.Helper()
		va, vb := tf(a), tf(b)
		if got := WeightedJaccard(va, vb); math.Abs(got-wj) > 1e-12 {
			t.Errorf("WeightedJaccard(%q, %q) = %v, want %v", a, b, got, wj)
		}
		if got := Cosine(va, vb); math.Abs(got-cos) > 1e-12 {
			t.Errorf("Cosine(%q, %q) = %v, want %v", a, b, got, cos)
		}
	}
	f("a a b", "a b b", 2.0/4, 4.0/5)
	f("a b c", "a b c", 1, 1)
	f("a b", "c d", 0, 0)
	f("a a a", "a", 1.0/3, 1)
	f("", "a", 0, 0)
}

func TestTFIDF(t *testing.T) {
	var b vocab.Builder
	b.Add([]byte("the cat"))
	b.Add([]byte("the dog"))
	v := b.Vocabulary()
	// "the" is in every document: idf 0, so it cannot make two texts alike.
	x := TFIDF(v, TermFrequencies(nil, words("the the the cat")))
	y := TFIDF(v, TermFrequencies(nil, words("the the the dog")))
	if c := Cosine(x, y); c != 0 {
		t.Errorf("cosine over tf-idf = %v, want 0", c)
	}
	if c := Cosine(TermFrequencies(nil, words("the the the cat")), TermFrequencies(nil, words("the the the dog"))); c < 0.8 {
		t.Errorf("cosine over tf = %v, want high", c)
	}
}

// levenshteinFull is the textbook full-matrix edit distance.
func levenshteinFull(a, b []uint64) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j-1]+c, d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	return d[len(a)][len(b)]
}

func TestLevenshtein(t *testing.T) {
	f := func(a, b string, want int) {
		t.Helper()
		if got := Levenshtein(words(a), words(b)); got != want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
	f("a b c", "a b c", 0)
	f("a b c", "a x c", 1)
	f("a b c", "a c", 1)
	f("a b c", "b c d", 2)
	f("", "a b", 2)
	f("a b c d e f", "f e d c b a", 6)

	r := rand.New(rand.NewPCG(2, 2))
	seq := func(n int) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(r.IntN(4)) // a small alphabet makes real alignments
		}
		return s
	}
	for range 2000 {
		a, b := seq(r.IntN(30)), seq(r.IntN(30))
		want := levenshteinFull(a, b)
		if got := Levenshtein(a, b); got != want {
			t.Fatalf("Levenshtein(%v, %v) = %d, want %d", a, b, got, want)
		}
		limit := r.IntN(35)
		got, ok := LevenshteinWithin(a, b, limit)
		if ok != (want <= limit) || ok && got != want || !ok && got != limit+1 {
			t.Fatalf("LevenshteinWithin(%v, %v, %d) = %d, %v; distance %d", a, b, limit, got, ok, want)
		}
	}
}

func TestEditSimilarity(t *testing.T) {
	a, b := words("one two three four five six seven eight nine ten"), words("one two three four five six seven eight nine eleven")
	if got := EditSimilarity(a, b); got != 0.9 {
		t.Errorf("one substitution in 10: %v, want 0.9", got)
	}
	f := func(th float64, ok bool) {
		t.Helper()
		s, got := EditSimilarityAtLeast(a, b, th)
		if got != ok || ok && s != 0.9 {
			t.Errorf("AtLeast(%v) = %v, %v; want %v", th, s, got, ok)
		}
	}
	f(0.9, true)
	f(0.5, true)
	f(0.91, false)
	if EditSimilarity(nil, nil) != 1 {
		t.Error("two empty sequences are identical")
	}
}
