package gen

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// byKind runs a generator and returns each copy's article next to its original's.
func byKind(o Options, n int) map[Kind][][2][]string {
	g := New(o)
	orig := map[string][]string{}
	out := map[Kind][][2][]string{}
	for range n {
		p := g.Next()
		text := articleText(p.HTML)
		if p.Kind == Original {
			orig[p.ID] = text
			continue
		}
		out[p.Kind] = append(out[p.Kind], [2][]string{orig[p.Origin], text})
	}
	return out
}

func TestCopySimilarity(t *testing.T) {
	f := func(k Kind, lo, hi float64) {
		t.Helper()
		pairs := byKind(Options{Seed: 11}, 2000)[k]
		if len(pairs) < 50 {
			t.Fatalf("%s: only %d copies", k, len(pairs))
		}
		sum := 0.0
		for _, p := range pairs {
			j := jaccard5(p[0], p[1])
			if j < lo || j > hi {
				t.Errorf("%s: Jaccard %.3f not in [%.2f, %.2f]", k, j, lo, hi)
			}
			sum += j
		}
		t.Logf("%-9s mean word-5-shingle Jaccard %.3f over %d copies", k, sum/float64(len(pairs)), len(pairs))
	}
	f(Mirror, 1, 1)
	f(Exact, 1, 1)
	f(Reordered, 0.75, 0.99)
	f(Truncated, 0.68, 0.91)
	f(Edited, 0.6, 0.85)
}

func TestDistinctOriginals(t *testing.T) {
	var sets []map[string]struct{}
	for _, p := range pages(Options{Seed: 3, CopyRate: -1}, 60) {
		sets = append(sets, shingleText(articleText(p.HTML)))
	}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if s := jaccardSets(sets[i], sets[j]); s > 0.01 {
				t.Errorf("originals %d and %d: Jaccard %.3f", i, j, s)
			}
		}
	}
}

func TestEditRate(t *testing.T) {
	f := func(rate float64) {
		t.Helper()
		pairs := byKind(Options{Seed: 5, EditRate: rate, CopyRate: 0.6}, 600)[Edited]
		if len(pairs) < 40 {
			t.Fatalf("only %d edited copies", len(pairs))
		}
		sum := 0.0
		for _, p := range pairs {
			a, b := strings.Fields(strings.Join(p[0], " ")), strings.Fields(strings.Join(p[1], " "))
			d := float64(wordDistance(a, b)) / float64(len(a))
			if d == 0 || d > 1.5*rate+0.01 {
				t.Errorf("EditRate %v: copy differs in %.4f of words", rate, d)
			}
			sum += d
		}
		// Edits at distinct positions cost one each, unless an insertion lands next to
		// a deletion (Levenshtein then counts one substitution), so the mean is a
		// little under the rate.
		if mean := sum / float64(len(pairs)); math.Abs(mean-rate) > rate*0.15 {
			t.Errorf("EditRate %v: mean word edit fraction %.4f", rate, mean)
		}
	}
	f(0.03)
	f(0.1)
}

func TestReorderedKeepsWords(t *testing.T) {
	for _, p := range byKind(Options{Seed: 9}, 1500)[Reordered] {
		a, b := slices.Clone(p[0][1:]), slices.Clone(p[1][1:])
		if slices.Equal(a, b) {
			t.Fatal("reordered copy has the original order")
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) || p[0][0] != p[1][0] {
			t.Fatal("reordered copy changed the paragraphs or the title")
		}
	}
}

func TestTruncatedIsPrefix(t *testing.T) {
	for _, p := range byKind(Options{Seed: 9}, 1500)[Truncated] {
		a, b := strings.Fields(strings.Join(p[0], " ")), strings.Fields(strings.Join(p[1], " "))
		frac := float64(len(b)) / float64(len(a))
		if !slices.Equal(a[:len(b)], b) || frac < 0.7 || frac > 0.91 {
			t.Fatalf("truncated copy keeps %.3f of the words, prefix %v", frac, slices.Equal(a[:len(b)], b))
		}
	}
}
