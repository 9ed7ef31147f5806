package cluster

import "math"

// Node roles in Center and Merge-Center.
const (
	unassigned uint8 = iota
	centre
	member
)

// Center clusters g by Center clustering (Haveliwala et al.; as described in Hassanzadeh
// et al.'s survey of clustering for duplicate detection): one scan of the edges in
// decreasing weight. When neither end of an edge has been seen, the earlier node becomes
// a centre and the later one joins it. When one end is a centre and the other has not
// been seen, the other joins that centre. Any other edge is skipped: a node stays in the
// first cluster it joins and a centre never joins another cluster. Nodes never reached
// are singletons (and their own centres).
//
// Edges of equal weight are scanned in increasing (earlier node, later node) order.
func Center(g *Graph) Clustering {
	return centerScan(g, false)
}

// MergeCenter clusters g by Merge-Center (Hassanzadeh and Miller): Center, except that
// an edge joining a centre to a node already in another cluster merges the two clusters
// (a record of one cluster is similar to the centre of the other). An edge between two
// non-centre members, or between a member and an unseen node, is still skipped, as in
// Center. A merged cluster keeps all its centres.
func MergeCenter(g *Graph) Clustering {
	return centerScan(g, true)
}

func centerScan(g *Graph, merge bool) Clustering {
	n := g.N()
	role := make([]uint8, n)
	owner := make([]int32, n) // the centre a node joined; a centre owns itself
	var uf unionFind
	if merge {
		uf = newUnionFind(n)
	}
	for _, e := range edgesByWeight(g) {
		u, v := e.U, e.V // u < v: u arrived first
		ru, rv := role[u], role[v]
		switch {
		case ru == unassigned && rv == unassigned:
			role[u], owner[u] = centre, u
			role[v], owner[v] = member, u
		case ru == centre && rv == unassigned:
			role[v], owner[v] = member, u
		case rv == centre && ru == unassigned:
			role[u], owner[u] = member, v
		case merge && (ru == centre && rv != unassigned || rv == centre && ru != unassigned):
			uf.union(owner[u], owner[v])
		}
	}
	labels := owner
	for u := range int32(n) {
		switch {
		case role[u] == unassigned:
			role[u], labels[u] = centre, u
		case merge:
			labels[u] = uf.find(owner[u])
		}
	}
	return newClustering(labels, n, centresOf(rolesAre(role, centre)))
}

func rolesAre(role []uint8, r uint8) []bool {
	out := make([]bool, len(role))
	for i, x := range role {
		out[i] = x == r
	}
	return out
}

// edgesByWeight returns every edge once (U < V) sorted by decreasing weight, ties in
// increasing (U, V) order. The edges come out of the graph already in (U, V) order, so a
// stable radix sort on the weight bits finishes the job in linear time. Positive
// float32s order like their bit patterns; complementing them gives decreasing order.
func edgesByWeight(g *Graph) []Edge {
	es := make([]Edge, 0, g.M())
	for e := range g.Edges() {
		es = append(es, e)
	}
	key := func(e Edge) uint64 { return uint64(^math.Float32bits(e.W)) }
	return radixSort(es, make([]Edge, len(es)), 32, key)
}

// unionFind is a disjoint-set forest over int32 with path halving and union by size.
type unionFind struct {
	parent []int32
	size   []int32
}

func newUnionFind(n int) unionFind {
	uf := unionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range uf.parent {
		uf.parent[i], uf.size[i] = int32(i), 1
	}
	return uf
}

func (uf unionFind) find(x int32) int32 {
	for uf.parent[x] != x {
		uf.parent[x] = uf.parent[uf.parent[x]]
		x = uf.parent[x]
	}
	return x
}

func (uf unionFind) union(a, b int32) {
	a, b = uf.find(a), uf.find(b)
	if a == b {
		return
	}
	if uf.size[a] < uf.size[b] {
		a, b = b, a
	}
	uf.parent[b] = a
	uf.size[a] += uf.size[b]
}
