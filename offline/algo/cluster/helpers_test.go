package cluster

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// e is shorthand for an edge in hand-made graphs.
func e(u, v int32, w float32) Edge { return Edge{U: u, V: v, W: w} }

func mustGraph(t testing.TB, n int, edges ...Edge) *Graph {
	t.Helper()
	g, err := NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// checkClusters compares c's clusters (each ascending, ordered by first member) and
// centres with the expected ones; a nil wantCentres skips the centre check.
func checkClusters(t *testing.T, c Clustering, want [][]int32, wantCentres []int32) {
	t.Helper()
	got := c.Clusters()
	if !slices.EqualFunc(got, want, slices.Equal[[]int32]) {
		t.Errorf("clusters = %v, want %v", got, want)
	}
	if wantCentres != nil && !slices.Equal(c.Centres, wantCentres) {
		t.Errorf("centres = %v, want %v", c.Centres, wantCentres)
	}
}

// randomGraph returns a graph of n nodes where each pair is an edge with probability p,
// with weights drawn from a few values so that ties are common.
func randomGraph(t testing.TB, rng *rand.Rand, n int, p float64) *Graph {
	t.Helper()
	weights := []float32{0.25, 0.5, 0.75, 1}
	var edges []Edge
	for u := range int32(n) {
		for v := u + 1; v < int32(n); v++ {
			if rng.Float64() < p {
				edges = append(edges, e(u, v, weights[rng.IntN(len(weights))]))
			}
		}
	}
	return mustGraph(t, n, edges...)
}

// plantedEdges makes a graph like a deduplication pass sees: n documents in clusters of
// 1..15 near-copies scattered over arrival order, each pair of a cluster similar with
// probability 0.6 (weight 0.7..1), plus noise edges between random documents at one per
// noise documents (weight 0.5..0.7). At n = 1M this gives about 3M edges.
func plantedEdges(n int, noise int, seed uint64) []Edge {
	rng := rand.New(rand.NewPCG(seed, 1))
	perm := rng.Perm(n)
	var edges []Edge
	for start := 0; start < n; {
		size := min(1+rng.IntN(15), n-start)
		members := perm[start : start+size]
		for i, a := range members {
			for _, b := range members[i+1:] {
				if rng.Float64() < 0.6 {
					edges = append(edges, e(int32(a), int32(b), 0.7+0.3*rng.Float32()))
				}
			}
		}
		start += size
	}
	for range noise {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			edges = append(edges, e(int32(a), int32(b), 0.5+0.2*rng.Float32()))
		}
	}
	return edges
}
