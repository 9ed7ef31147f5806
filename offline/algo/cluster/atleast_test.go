package cluster

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAtLeast: the filtered graph has exactly the edges of weight >= w, the same
// nodes, and answers as a graph built from those edges would; g is unchanged.
func TestAtLeast(t *testing.T) {
	g := randomGraph(t, rand.New(rand.NewPCG(5, 5)), 60, 0.2)
	all := slices.Collect(g.Edges())
	for _, w := range []float64{0, 0.25, 0.5, 0.6, 0.75, 1, 1.1} {
		var want []Edge
		for _, e := range all {
			if float64(e.W) >= w {
				want = append(want, e)
			}
		}
		h := g.AtLeast(w)
		if got := slices.Collect(h.Edges()); !slices.Equal(got, want) || h.N() != g.N() || h.M() != len(want) {
			t.Fatalf("w %v: %d nodes, %d edges, want %d, %d", w, h.N(), h.M(), g.N(), len(want))
		}
		built := mustGraph(t, g.N(), want...)
		if a, b := Star(h), Star(built); !slices.Equal(a.Labels, b.Labels) {
			t.Fatalf("w %v: star differs from the graph built from the filtered edges", w)
		}
	}
	if !slices.Equal(slices.Collect(g.Edges()), all) {
		t.Error("AtLeast changed the graph")
	}
}
