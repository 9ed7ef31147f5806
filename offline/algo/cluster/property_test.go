package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// forRandomGraphs runs f on a few hundred small random graphs of varied density.
func forRandomGraphs(t *testing.T, f func(t *testing.T, g *Graph)) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 3))
		n := 1 + rng.IntN(40)
		p := []float64{0.03, 0.08, 0.15, 0.3, 0.6}[rng.IntN(5)]
		g := randomGraph(t, rng, n, p)
		t.Run(fmt.Sprintf("seed%d-n%d-p%v", seed, n, p), func(t *testing.T) { f(t, g) })
	}
}

func TestPropertyEveryAlgorithm(t *testing.T) {
	forRandomGraphs(t, func(t *testing.T, g *Graph) {
		comp := Components(g).Labels
		for _, name := range Names() {
			alg, _ := ByName(name)
			c := alg(g)
			checkPartition(t, name, g, c)
			// Every clustering refines the connected components.
			owner := map[int32]int32{}
			for u, l := range c.Labels {
				if o, ok := owner[l]; ok && o != comp[u] {
					t.Errorf("%s: cluster %d spans components %d and %d", name, l, o, comp[u])
				}
				owner[l] = comp[u]
			}
			if again := alg(g); !slices.Equal(again.Labels, c.Labels) || !slices.Equal(again.Centres, c.Centres) {
				t.Errorf("%s: two runs differ", name)
			}
		}
	})
}

// checkPartition checks that c labels every node once with canonical labels, and that
// every cluster holds a centre when the algorithm has centres.
func checkPartition(t *testing.T, name string, g *Graph, c Clustering) {
	t.Helper()
	if len(c.Labels) != g.N() {
		t.Fatalf("%s: %d labels for %d nodes", name, len(c.Labels), g.N())
	}
	next := int32(0)
	for u, l := range c.Labels {
		switch {
		case l == next:
			next++
		case l < 0 || l > next:
			t.Fatalf("%s: node %d has label %d, next new label %d", name, u, l, next)
		}
	}
	if int(next) != c.K {
		t.Errorf("%s: K = %d, %d labels used", name, c.K, next)
	}
	if c.Centres == nil {
		return
	}
	if !slices.IsSorted(c.Centres) {
		t.Errorf("%s: centres not sorted: %v", name, c.Centres)
	}
	has := make([]bool, c.K)
	for _, u := range c.Centres {
		has[c.Labels[u]] = true
	}
	if i := slices.Index(has, false); i >= 0 {
		t.Errorf("%s: cluster %d has no centre", name, i)
	}
}

// TestPropertyCentreAlgorithms checks what each centre-based algorithm promises about its
// centres.
func TestPropertyCentreAlgorithms(t *testing.T) {
	forRandomGraphs(t, func(t *testing.T, g *Graph) {
		center := Center(g)
		oneCentreEach(t, "center", g, center)
		oneCentreEach(t, "ricochet-sr", g, RicochetSR(g))
		oneCentreEach(t, "ricochet-bsr", g, RicochetBSR(g))
		for _, name := range []string{"star", "online-star"} {
			alg, _ := ByName(name)
			c := alg(g)
			oneCentreEach(t, name, g, c)
			checkStarCover(t, name, g, c.Centres, g.Degree)
		}
		// Merge-Center makes the same assignments as Center and only merges clusters.
		merged := MergeCenter(g)
		if !slices.Equal(merged.Centres, center.Centres) {
			t.Errorf("merge-center centres %v, center %v", merged.Centres, center.Centres)
		}
		for u, l := range center.Labels {
			for v, m := range center.Labels {
				if l == m && merged.Labels[u] != merged.Labels[v] {
					t.Errorf("center puts %d and %d together, merge-center does not", u, v)
				}
			}
		}
	})
}

// oneCentreEach checks that every cluster has exactly one centre and every other member
// is adjacent to it.
func oneCentreEach(t *testing.T, name string, g *Graph, c Clustering) {
	t.Helper()
	centreOf := make([]int32, c.K)
	for i := range centreOf {
		centreOf[i] = -1
	}
	for _, u := range c.Centres {
		if centreOf[c.Labels[u]] >= 0 {
			t.Errorf("%s: cluster %d has centres %d and %d", name, c.Labels[u], centreOf[c.Labels[u]], u)
		}
		centreOf[c.Labels[u]] = u
	}
	for u, l := range c.Labels {
		if cu := centreOf[l]; cu >= 0 && cu != int32(u) {
			if _, ok := g.Weight(int32(u), cu); !ok {
				t.Errorf("%s: node %d is not adjacent to its centre %d", name, u, cu)
			}
		}
	}
}

// checkStarCover checks a star cover of the graph of nodes 0..len(deg)-1: centres are
// pairwise non-adjacent and every other node is adjacent to a centre of at least its
// degree.
func checkStarCover(t *testing.T, name string, g *Graph, centres []int32, deg func(int32) int) {
	t.Helper()
	isCentre := make(map[int32]bool, len(centres))
	for _, c := range centres {
		isCentre[c] = true
	}
	for _, c := range centres {
		for _, d := range centres {
			if _, ok := g.Weight(c, d); ok {
				t.Errorf("%s: centres %d and %d are adjacent", name, c, d)
			}
		}
	}
	for u := range int32(g.N()) {
		if isCentre[u] {
			continue
		}
		nb, _ := g.Neighbors(u)
		if !slices.ContainsFunc(nb, func(v int32) bool { return isCentre[v] && deg(v) >= deg(u) }) {
			t.Errorf("%s: satellite %d (degree %d) has no adjacent centre of at least its degree", name, u, deg(u))
		}
	}
}

// TestPropertyOnlineStarEveryStep checks the star cover after every insertion, on the
// graph of the nodes inserted so far.
func TestPropertyOnlineStarEveryStep(t *testing.T) {
	forRandomGraphs(t, func(t *testing.T, g *Graph) {
		s := NewOnlineStar(g)
		for s.Step() {
			k := s.Inserted()
			var edges []Edge
			for ed := range g.Edges() {
				if int(ed.V) < k {
					edges = append(edges, ed)
				}
			}
			prefix := mustGraph(t, k, edges...)
			c := s.Clustering()
			for u := range int32(k) {
				if s.Degree(u) != prefix.Degree(u) {
					t.Fatalf("after %d nodes: degree of %d is %d, want %d", k, u, s.Degree(u), prefix.Degree(u))
				}
			}
			checkPartition(t, "online-star", prefix, c)
			oneCentreEach(t, "online-star", prefix, c)
			checkStarCover(t, fmt.Sprintf("online-star after %d nodes", k), prefix, c.Centres, prefix.Degree)
		}
	})
}

// TestPropertyBiconnected compares the blocks with brute force: articulation points are
// the nodes whose removal adds a component, and two nodes of one cluster must be
// adjacent or joined by two paths with no inner node in common.
func TestPropertyBiconnected(t *testing.T) {
	forRandomGraphs(t, func(t *testing.T, g *Graph) {
		n := int32(g.N())
		bl := findBlocks(g)
		inBlocks := make([]int, n)
		for x, b := range bl.of {
			if b >= 0 {
				inBlocks[x]++
			}
		}
		for _, tp := range bl.top {
			inBlocks[tp]++
		}
		base := countComponents(g, -1)
		for v := range n {
			without := base // components once v is removed, if it is no cut vertex
			if g.Degree(v) == 0 {
				without-- // an isolated v takes its own component with it
			}
			cut := countComponents(g, v) > without
			if cut != (inBlocks[v] > 1) {
				t.Errorf("node %d: brute-force cut vertex %v, in %d blocks", v, cut, inBlocks[v])
			}
		}
		c := Biconnected(g)
		for u := range n {
			for v := u + 1; v < n; v++ {
				if c.Labels[u] == c.Labels[v] && !sameBlock(g, u, v) {
					t.Errorf("nodes %d and %d share a cluster but no block", u, v)
				}
			}
		}
	})
}

// countComponents counts the components of g without node skip (-1: none).
func countComponents(g *Graph, skip int32) int {
	seen := make([]bool, g.N())
	count := 0
	for s := range int32(g.N()) {
		if s == skip || seen[s] {
			continue
		}
		count++
		reach(g, s, skip, seen)
	}
	return count
}

// reach marks every node reachable from s avoiding skip.
func reach(g *Graph, s, skip int32, seen []bool) {
	stack := []int32{s}
	seen[s] = true
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nb, _ := g.Neighbors(u)
		for _, v := range nb {
			if v != skip && !seen[v] {
				seen[v] = true
				stack = append(stack, v)
			}
		}
	}
}

// sameBlock reports whether u and v lie in one biconnected component: they are adjacent,
// or connected with no single other node separating them (Menger).
func sameBlock(g *Graph, u, v int32) bool {
	if _, ok := g.Weight(u, v); ok {
		return true
	}
	connected := func(skip int32) bool {
		seen := make([]bool, g.N())
		reach(g, u, skip, seen)
		return seen[v]
	}
	if !connected(-1) {
		return false
	}
	for w := range int32(g.N()) {
		if w != u && w != v && !connected(w) {
			return false
		}
	}
	return true
}

// TestPropertyPlanted runs every algorithm on a mid-sized planted graph, where the checks
// above would be slow, for the partition and component properties only.
func TestPropertyPlanted(t *testing.T) {
	const n = 20000
	g := mustGraph(t, n, plantedEdges(n, n/10, 7)...)
	comp := Components(g).Labels
	for _, name := range Names() {
		alg, _ := ByName(name)
		c := alg(g)
		checkPartition(t, name, g, c)
		first := make([]int32, c.K)
		for i := range first {
			first[i] = -1
		}
		for u, l := range c.Labels {
			if first[l] < 0 {
				first[l] = comp[u]
			} else if first[l] != comp[u] {
				t.Fatalf("%s: cluster %d spans two components", name, l)
			}
		}
		if name == "star" || name == "online-star" {
			checkStarCover(t, name, g, c.Centres, g.Degree)
		}
	}
}
