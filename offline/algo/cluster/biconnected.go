package cluster

import "math"

// Biconnected clusters g by articulation points: the graph is split into its biconnected
// components (blocks: maximal sets of nodes that no single node's removal disconnects;
// a bridge is a block of two nodes). A node in one block belongs to its cluster. An
// articulation point lies in several blocks and joins the one where the total weight of
// its edges is greatest; ties go to the larger block, then to the block whose smallest
// other node is earliest (two blocks share at most one node, so this decides every tie).
// Each cluster is a block minus the articulation points that chose other blocks, so a
// bridge is a pair when neither end has a heavier block, one node when one end does, and
// nothing when both do; an isolated node is a singleton. A cluster can be disconnected
// once its articulation points leave (a 4-cycle whose two opposite nodes join heavier
// blocks leaves the other two together without an edge between them): they stay one
// cluster, since the block joined them by two disjoint paths.
//
// The depth-first search is iterative, so a path of a million nodes does not exhaust the
// goroutine stack.
func Biconnected(g *Graph) Clustering {
	n := g.N()
	ch := newChooser(findBlocks(g))
	nb := len(ch.top)
	labels := make([]int32, n)
	for v := range int32(n) {
		labels[v] = ch.choose(g, v)
		if labels[v] < 0 {
			labels[v] = int32(nb) + v // isolated
		}
	}
	return newClustering(labels, nb+n, nil)
}

// chooser picks the block each node joins.
type chooser struct {
	blocks
	size, min1, min2 []int32   // each block's node count and two smallest nodes
	acc              []float64 // scratch: a node's total edge weight in each block
	touched          []int32   // scratch: the blocks with acc > 0
}

func newChooser(bl blocks) *chooser {
	ch := &chooser{blocks: bl, acc: make([]float64, len(bl.top))}
	ch.size, ch.min1, ch.min2 = bl.shape()
	return ch
}

// choose returns the block v joins (-1 for an isolated node): the greatest total weight
// of v's edges, then the larger block, then the earlier smallest node other than v.
func (ch *chooser) choose(g *Graph, v int32) int32 {
	ch.touched = ch.touched[:0]
	nbr, w := g.Neighbors(v)
	for i, x := range nbr {
		b := ch.edgeBlock(v, x)
		if ch.acc[b] == 0 { // weights are positive, so 0 means not yet touched
			ch.touched = append(ch.touched, b)
		}
		ch.acc[b] += float64(w[i])
	}
	best := int32(-1)
	for _, b := range ch.touched {
		if best < 0 || ch.better(b, best, v) {
			best = b
		}
	}
	for _, b := range ch.touched {
		ch.acc[b] = 0
	}
	return best
}

func (ch *chooser) better(b, than, v int32) bool {
	if ch.acc[b] != ch.acc[than] {
		return ch.acc[b] > ch.acc[than]
	}
	if ch.size[b] != ch.size[than] {
		return ch.size[b] > ch.size[than]
	}
	return ch.other(b, v) < ch.other(than, v)
}

// other returns the smallest node of block b other than v.
func (ch *chooser) other(b, v int32) int32 {
	if ch.min1[b] != v {
		return ch.min1[b]
	}
	return ch.min2[b]
}

// blocks describes the biconnected components of a graph. Every block has one top node
// (the articulation point, or the search root, through which the depth-first search
// entered it); every node that is not a search root is a non-top member of exactly one
// block, and is the top of the blocks hanging below it.
type blocks struct {
	of  []int32 // block in which a node is a non-top member; -1 for search roots
	top []int32 // top node of each block
}

// findBlocks runs Hopcroft and Tarjan's depth-first search for biconnected components
// with an explicit stack. When the search leaves v for its parent p and no node below v
// reaches above p (low[v] >= disc[p]), the nodes pushed since v, with p, form a block.
func findBlocks(g *Graph) blocks {
	n := g.N()
	disc := make([]int32, n) // discovery time from 1; 0 = unvisited
	low := make([]int32, n)
	parent := make([]int32, n)
	next := make([]int32, n) // next adjacency index to examine
	bl := blocks{of: make([]int32, n)}
	var stack, members []int32
	time := int32(0)
	visit := func(v, p int32) {
		time++
		disc[v], low[v], parent[v], next[v], bl.of[v] = time, time, p, g.off[v], -1
		stack = append(stack, v)
	}
	for r := range int32(n) {
		if disc[r] != 0 {
			continue
		}
		visit(r, -1)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			if next[v] < g.off[v+1] {
				w := g.nbr[next[v]]
				next[v]++
				if disc[w] == 0 {
					visit(w, v)
					members = append(members, w)
				} else if w != parent[v] { // edges are distinct, so this skips only the tree edge
					low[v] = min(low[v], disc[w])
				}
				continue
			}
			stack = stack[:len(stack)-1]
			p := parent[v]
			if p < 0 {
				continue
			}
			low[p] = min(low[p], low[v])
			if low[v] >= disc[p] {
				b := int32(len(bl.top))
				bl.top = append(bl.top, p)
				for {
					x := members[len(members)-1]
					members = members[:len(members)-1]
					bl.of[x] = b
					if x == v {
						break
					}
				}
			}
		}
	}
	return bl
}

// edgeBlock returns the block holding edge u-v: the block both are non-top members of,
// or the block of one whose top is the other.
func (bl blocks) edgeBlock(u, v int32) int32 {
	bu, bv := bl.of[u], bl.of[v]
	switch {
	case bu == bv:
		return bu
	case bv >= 0 && bl.top[bv] == u:
		return bv
	default:
		return bu
	}
}

// shape returns each block's number of nodes and its two smallest nodes.
func (bl blocks) shape() (size, min1, min2 []int32) {
	nb := len(bl.top)
	size, min1, min2 = make([]int32, nb), make([]int32, nb), make([]int32, nb)
	for b := range nb {
		min1[b], min2[b] = math.MaxInt32, math.MaxInt32
	}
	add := func(b, x int32) {
		size[b]++
		switch {
		case x < min1[b]:
			min1[b], min2[b] = x, min1[b]
		case x < min2[b]:
			min2[b] = x
		}
	}
	for b, t := range bl.top {
		add(int32(b), t)
	}
	for x, b := range bl.of {
		if b >= 0 {
			add(b, int32(x))
		}
	}
	return size, min1, min2
}
