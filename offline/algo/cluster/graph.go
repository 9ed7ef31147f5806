package cluster

import (
	"fmt"
	"iter"
	"math"
	"slices"
)

// Edge is a similar pair of nodes with its similarity W in (0, 1].
type Edge struct {
	U, V int32
	W    float32
}

// Graph is an undirected weighted graph in compressed sparse row form: the neighbours of
// node u are nbr[off[u]:off[u+1]] in increasing order, with their weights in w. Each edge
// is stored twice, once in each endpoint's row, so a graph of n nodes and m edges takes
// 4(n+1) + 16m bytes.
type Graph struct {
	off []int32
	nbr []int32
	w   []float32
}

// maxHalfEdges bounds 2m so that row offsets fit in int32.
const maxHalfEdges = math.MaxInt32

// NewGraph builds the graph of n nodes with the given edges. An edge listed more than
// once (in either direction) is kept once with its greatest weight. Self-loops, nodes
// outside [0, n) and weights outside (0, 1] are errors. NewGraph does not keep edges.
//
// Building is linear in n + len(edges): rows come out sorted by two counting passes
// instead of a sort, and the peak memory is the finished graph plus 8 bytes per edge and
// 12 per node.
func NewGraph(n int, edges []Edge) (*Graph, error) {
	if n < 0 || n > math.MaxInt32 {
		return nil, fmt.Errorf("build graph: %d nodes out of range", n)
	}
	if 2*int64(len(edges)) > maxHalfEdges {
		return nil, fmt.Errorf("build graph: %d edges, more than %d", len(edges), maxHalfEdges/2)
	}
	for i, e := range edges {
		if err := checkEdge(n, e); err != nil {
			return nil, fmt.Errorf("build graph: edge %d (%d-%d): %w", i, e.U, e.V, err)
		}
	}
	g := &Graph{off: make([]int32, n+1)}
	nfwd := make([]int32, n+1) // nfwd[u]: edges from u to a larger node
	for _, e := range edges {
		lo, hi := minmax(e.U, e.V)
		nfwd[lo]++
		g.off[hi+1]++ // edges from hi to a smaller node, counted into the row offsets below
	}
	g.fill(edges, nfwd)
	g.dedupe()
	return g, nil
}

func checkEdge(n int, e Edge) error {
	switch {
	case e.U < 0 || int(e.U) >= n || e.V < 0 || int(e.V) >= n:
		return fmt.Errorf("node outside [0,%d)", n)
	case e.U == e.V:
		return fmt.Errorf("self-loop")
	case !(e.W > 0 && e.W <= 1): // also rejects NaN
		return fmt.Errorf("weight %v not in (0,1]", e.W)
	}
	return nil
}

func minmax(a, b int32) (int32, int32) {
	if a < b {
		return a, b
	}
	return b, a
}

// fill lays out the rows. On entry off[u+1] counts u's smaller neighbours ("back") and
// nfwd[u] its larger ones ("forward"). Row u is back(u) followed by forward(u), each
// ascending. The forward lists are first written unsorted to a scratch CSR; walking it in
// node order writes every back list in order; walking the back lists in node order then
// writes every forward list in order.
func (g *Graph) fill(edges []Edge, nfwd []int32) {
	n := len(g.off) - 1
	back := g.off[1:] // back[u] counts u's smaller neighbours
	foff := make([]int32, n+1)
	for u := range n {
		foff[u+1] = foff[u] + nfwd[u]
	}
	fnbr := make([]int32, len(edges))
	fw := make([]float32, len(edges))
	for _, e := range edges { // nfwd becomes the next free slot of each scratch row
		lo, hi := minmax(e.U, e.V)
		i := foff[lo+1] - nfwd[lo]
		nfwd[lo]--
		fnbr[i], fw[i] = hi, e.W
	}
	// Row starts: off[u] = Σ_{v<u} deg(v); nb[u] is the next free back slot of row u.
	nb := make([]int32, n)
	var sum int32
	for u := range n {
		deg := back[u] + foff[u+1] - foff[u]
		nb[u], g.off[u] = sum, sum
		sum += deg
	}
	g.off[n] = sum
	g.nbr = make([]int32, sum)
	g.w = make([]float32, sum)
	for u := range n { // forward(u) holds v > u; append u to back(v): ascending in u
		for i := foff[u]; i < foff[u+1]; i++ {
			v := fnbr[i]
			g.nbr[nb[v]], g.w[nb[v]] = int32(u), fw[i]
			nb[v]++
		}
	}
	// nb[u] is now the first forward slot of row u; append v to forward(u) for every u in
	// back(v), walking v ascending.
	for v := range n {
		for i := g.off[v]; i < nb[v]; i++ { // nb[v] is untouched until a larger v is reached
			u := g.nbr[i]
			g.nbr[nb[u]], g.w[nb[u]] = int32(v), g.w[i]
			nb[u]++
		}
	}
}

// dedupe merges repeated neighbours (adjacent, since rows are sorted), keeping the
// greatest weight, and compacts the rows in place.
func (g *Graph) dedupe() {
	n := len(g.off) - 1
	var out, start int32
	for u := range n {
		end := g.off[u+1]
		g.off[u] = out
		for i := start; i < end; i++ {
			if out > g.off[u] && g.nbr[out-1] == g.nbr[i] {
				g.w[out-1] = max(g.w[out-1], g.w[i])
				continue
			}
			g.nbr[out], g.w[out] = g.nbr[i], g.w[i]
			out++
		}
		start = end
	}
	g.off[n] = out
	if int(out) < len(g.nbr) {
		g.nbr = slices.Clip(g.nbr[:out])
		g.w = slices.Clip(g.w[:out])
	}
}

// N returns the number of nodes.
func (g *Graph) N() int { return len(g.off) - 1 }

// M returns the number of distinct edges.
func (g *Graph) M() int { return len(g.nbr) / 2 }

// Degree returns the number of neighbours of u.
func (g *Graph) Degree(u int32) int { return int(g.off[u+1] - g.off[u]) }

// Neighbors returns u's neighbours in increasing order and the weights of the edges to
// them. The slices alias the graph's storage and must not be modified.
func (g *Graph) Neighbors(u int32) ([]int32, []float32) {
	lo, hi := g.off[u], g.off[u+1]
	return g.nbr[lo:hi:hi], g.w[lo:hi:hi]
}

// Weight returns the weight of edge u-v and whether it exists.
func (g *Graph) Weight(u, v int32) (float32, bool) {
	nb, w := g.Neighbors(u)
	if i, ok := slices.BinarySearch(nb, v); ok {
		return w[i], true
	}
	return 0, false
}

// Edges yields every edge once, with U < V, in increasing (U, V) order.
func (g *Graph) Edges() iter.Seq[Edge] {
	return func(yield func(Edge) bool) {
		for u := range int32(g.N()) {
			nb, w := g.Neighbors(u)
			i, _ := slices.BinarySearch(nb, u)
			for ; i < len(nb); i++ {
				if !yield(Edge{U: u, V: nb[i], W: w[i]}) {
					return
				}
			}
		}
	}
}

// Bytes returns the memory the graph holds, in bytes.
func (g *Graph) Bytes() int {
	return 4*cap(g.off) + 4*cap(g.nbr) + 4*cap(g.w)
}
