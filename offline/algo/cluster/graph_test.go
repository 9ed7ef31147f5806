package cluster

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestNewGraphErrors(t *testing.T) {
	f := func(n int, edges []Edge, want string) {
		t.Helper()
		_, err := NewGraph(n, edges)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewGraph(%d, %v) error %v, want one containing %q", n, edges, err, want)
		}
	}
	f(-1, nil, "nodes out of range")
	f(3, []Edge{e(0, 3, 1)}, "edge 0 (0-3): node outside [0,3)")
	f(3, []Edge{e(0, 1, 1), e(-1, 1, 1)}, "edge 1 (-1-1): node outside")
	f(3, []Edge{e(2, 2, 1)}, "self-loop")
	f(3, []Edge{e(0, 1, 0)}, "weight 0 not in (0,1]")
	f(3, []Edge{e(0, 1, 1.5)}, "not in (0,1]")
	f(3, []Edge{e(0, 1, float32(math.NaN()))}, "not in (0,1]")
}

func TestGraphEmpty(t *testing.T) {
	g := mustGraph(t, 0)
	for _, name := range Names() {
		alg, _ := ByName(name)
		if c := alg(g); c.K != 0 || len(c.Labels) != 0 {
			t.Errorf("%s on the empty graph: %+v", name, c)
		}
	}
}

// TestNewGraphMatchesNaive checks the two-pass layout against a map of edges, with
// repeated edges in both directions.
func TestNewGraphMatchesNaive(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 2))
		n := 1 + rng.IntN(30)
		want := map[[2]int32]float32{}
		var edges []Edge
		for range rng.IntN(4 * n) {
			u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
			if u == v {
				continue
			}
			w := float32(1+rng.IntN(8)) / 8
			edges = append(edges, e(u, v, w))
			k := [2]int32{min(u, v), max(u, v)}
			want[k] = max(want[k], w)
		}
		g := mustGraph(t, n, edges...)
		if g.N() != n || g.M() != len(want) {
			t.Fatalf("seed %d: N, M = %d, %d, want %d, %d", seed, g.N(), g.M(), n, len(want))
		}
		var got []Edge
		for ed := range g.Edges() {
			got = append(got, ed)
		}
		if !slices.IsSortedFunc(got, func(a, b Edge) int {
			return int(a.U-b.U)*1000 + int(a.V-b.V)
		}) {
			t.Errorf("seed %d: Edges not in (U, V) order: %v", seed, got)
		}
		for _, ed := range got {
			if ed.W != want[[2]int32{ed.U, ed.V}] {
				t.Errorf("seed %d: edge %v, want weight %v", seed, ed, want[[2]int32{ed.U, ed.V}])
			}
			if w, ok := g.Weight(ed.V, ed.U); !ok || w != ed.W {
				t.Errorf("seed %d: Weight(%d, %d) = %v, %v", seed, ed.V, ed.U, w, ok)
			}
		}
		deg := 0
		for u := range int32(n) {
			nb, _ := g.Neighbors(u)
			if !slices.IsSorted(nb) {
				t.Errorf("seed %d: row %d not sorted: %v", seed, u, nb)
			}
			deg += g.Degree(u)
		}
		if deg != 2*len(want) {
			t.Errorf("seed %d: degrees sum to %d, want %d", seed, deg, 2*len(want))
		}
	}
}

func TestClusteringHelpers(t *testing.T) {
	c := newClustering([]int32{7, 3, 7, 5, 3}, 8, nil)
	if !slices.Equal(c.Labels, []int32{0, 1, 0, 2, 1}) || c.K != 3 {
		t.Errorf("labels %v K %d", c.Labels, c.K)
	}
	if got := c.Sizes(); !slices.Equal(got, []int32{2, 2, 1}) {
		t.Errorf("sizes %v", got)
	}
	checkClusters(t, c, [][]int32{{0, 2}, {1, 4}, {3}}, nil)
}

// TestRadixOrders checks both radix sorts against a comparison sort.
func TestRadixOrders(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 8))
		g := randomGraph(t, rng, 1+rng.IntN(60), 0.2)
		var want []Edge
		for ed := range g.Edges() {
			want = append(want, ed)
		}
		slices.SortFunc(want, func(a, b Edge) int {
			switch {
			case a.W != b.W:
				return cmp.Compare(b.W, a.W)
			case a.U != b.U:
				return cmp.Compare(a.U, b.U)
			}
			return cmp.Compare(a.V, b.V)
		})
		if got := edgesByWeight(g); !slices.Equal(got, want) {
			t.Errorf("seed %d: edgesByWeight\n%v\nwant\n%v", seed, got, want)
		}
		weight := make([]float64, 50)
		for i := range weight {
			weight[i] = float64(rng.IntN(5)) / 4 * rng.Float64()
		}
		order := byWeight(weight)
		if !slices.IsSortedFunc(order, func(a, b int32) int {
			return cmp.Or(cmp.Compare(weight[b], weight[a]), cmp.Compare(a, b))
		}) {
			t.Errorf("seed %d: byWeight order %v", seed, order)
		}
	}
}
