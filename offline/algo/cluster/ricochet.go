package cluster

import "math"

// RicochetSR clusters g by Ricochet sequential rippling (Wijaya and Bressan, 2009). Our
// reading of the algorithm, from the paper's summary and Hassanzadeh et al.'s survey:
//
//   - The weight of a node is the mean weight of its edges (0 for an isolated node).
//     Nodes are taken as seeds one at a time in decreasing weight, ties to the earlier
//     node; each node is considered once.
//   - Every node belongs to at most one seed, with its similarity to it (a seed has
//     similarity 1 to itself). Before the first seed, "one cluster holds every node" at
//     similarity 0, which is the same as belonging to no seed.
//   - A new seed v leaves its cluster and ripples: every neighbour that is not a seed and
//     is strictly more similar to v than to its current seed moves to v. Seeds never move
//     by rippling.
//   - If v attracted nobody it is withdrawn and goes back to its cluster, so a seed always
//     has a member besides itself.
//   - Clusters that the ripple left with only their seed are dissolved, all at once: each
//     such seed stops being a seed and joins its most similar adjacent seed (ties: the
//     earlier seed), or belongs to no seed if none is adjacent.
//   - At the end, nodes that belong to no seed are singletons and their own centres.
//
// Clustering.Centres lists the final seeds (and those singletons).
func RicochetSR(g *Graph) Clustering {
	r := newRipple(g)
	for _, v := range byWeight(r.weight) {
		r.seed(v)
	}
	return r.clustering()
}

// RicochetBSR clusters g by Ricochet balanced sequential rippling. It ripples and
// dissolves exactly like RicochetSR but picks seeds in a different order: the next seed
// is the node not yet considered that maximises its weight divided by the sum of its
// similarities to the current seeds, so that seeds are heavy nodes far from existing
// seeds. Nodes adjacent to no seed (an infinite ratio) come first, by decreasing weight;
// remaining ties go to the earlier node. Each node is still considered once.
func RicochetBSR(g *Graph) Clustering {
	r := newRipple(g)
	r.nSeeds, r.toSeeds = make([]int32, g.N()), make([]float64, g.N())
	q := newBSRQueue(r)
	r.changed = func(u int32) { q.update(u, r.bsrKey(u)) }
	for len(q.items) > 0 {
		r.seed(q.pop())
	}
	return r.clustering()
}

// byWeight returns the nodes by decreasing weight, ties to the earlier node: a stable
// radix sort of the complemented float64 bits (non-negative floats order like their
// bits).
func byWeight(weight []float64) []int32 {
	type item struct {
		key  uint64
		node int32
	}
	items := make([]item, len(weight))
	for u, w := range weight {
		items[u] = item{^math.Float64bits(w), int32(u)}
	}
	items = radixSort(items, make([]item, len(items)), 64, func(it item) uint64 { return it.key })
	order := make([]int32, len(items))
	for i, it := range items {
		order[i] = it.node
	}
	return order
}

// ripple is the state shared by SR and BSR.
type ripple struct {
	g       *Graph
	weight  []float64 // mean edge weight
	owner   []int32   // seed a node belongs to, or -1
	sim     []float32 // similarity to owner (1 for a seed)
	size    []int32   // members of a seed's cluster, the seed included
	isSeed  []bool
	touched []int32 // seeds that lost a member in the current ripple

	// BSR only: the number of adjacent seeds and the sum of similarities to them, and a
	// hook told when they change.
	nSeeds  []int32
	toSeeds []float64
	changed func(u int32)
}

func newRipple(g *Graph) *ripple {
	n := g.N()
	r := &ripple{
		g: g, weight: make([]float64, n), owner: make([]int32, n), sim: make([]float32, n),
		size: make([]int32, n), isSeed: make([]bool, n),
	}
	for u := range int32(n) {
		r.owner[u] = -1
		_, w := g.Neighbors(u)
		sum := 0.0
		for _, x := range w {
			sum += float64(x)
		}
		if len(w) > 0 {
			r.weight[u] = sum / float64(len(w))
		}
	}
	return r
}

// seed makes v a seed, ripples, and dissolves the clusters left with only their seed.
func (r *ripple) seed(v int32) {
	old, oldSim := r.owner[v], r.sim[v]
	r.touched = r.touched[:0]
	r.leave(v)
	r.owner[v], r.sim[v], r.size[v], r.isSeed[v] = v, 1, 1, true
	nb, w := r.g.Neighbors(v)
	for i, u := range nb {
		if !r.isSeed[u] && w[i] > r.sim[u] {
			r.leave(u)
			r.owner[u], r.sim[u] = v, w[i]
			r.size[v]++
		}
	}
	if r.size[v] == 1 { // attracted nobody: withdraw
		r.isSeed[v], r.size[v] = false, 0
		r.owner[v], r.sim[v] = old, oldSim
		if old >= 0 {
			r.size[old]++
		}
		return
	}
	r.seedChanged(v, +1)
	r.dissolve()
}

// leave takes u out of its current cluster, noting the seed that lost it.
func (r *ripple) leave(u int32) {
	if s := r.owner[u]; s >= 0 {
		r.size[s]--
		r.touched = append(r.touched, s)
	}
}

// dissolve turns every touched seed left alone into a member of its most similar adjacent
// seed. All lone seeds stop being seeds before any of them joins another, so the result
// does not depend on the order they are visited in.
func (r *ripple) dissolve() {
	lone := r.touched[:0]
	for _, s := range r.touched {
		if r.isSeed[s] && r.size[s] == 1 {
			r.isSeed[s] = false
			lone = append(lone, s)
			r.seedChanged(s, -1)
		}
	}
	for _, s := range lone {
		best, bw := int32(-1), float32(0)
		nb, w := r.g.Neighbors(s)
		for i, t := range nb {
			if r.isSeed[t] && w[i] > bw { // ascending nb: ties keep the earlier seed
				best, bw = t, w[i]
			}
		}
		r.owner[s], r.sim[s], r.size[s] = best, bw, 0
		if best >= 0 {
			r.size[best]++
		}
	}
}

// seedChanged updates BSR's similarities to seeds when s gains (+1) or loses (-1) its
// seed role.
func (r *ripple) seedChanged(s int32, sign int32) {
	if r.toSeeds == nil {
		return
	}
	nb, w := r.g.Neighbors(s)
	for i, u := range nb {
		r.nSeeds[u] += sign
		r.toSeeds[u] += float64(sign) * float64(w[i])
		if r.nSeeds[u] == 0 {
			r.toSeeds[u] = 0 // clear rounding residue
		}
		r.changed(u)
	}
}

func (r *ripple) clustering() Clustering {
	n := r.g.N()
	labels := r.owner
	isCentre := r.isSeed
	for u := range int32(n) {
		if labels[u] < 0 {
			labels[u], isCentre[u] = u, true
		}
	}
	return newClustering(labels, n, centresOf(isCentre))
}

// bsrKey is the BSR priority of u as one sortable integer: weight over similarity to
// the current seeds, with nodes adjacent to no seed (an infinite ratio) in a tier above,
// ordered among themselves by weight. Non-negative float64s order like their bits, and
// finite ones leave the top bit free for the tier.
func (r *ripple) bsrKey(u int32) uint64 {
	if r.nSeeds[u] == 0 {
		return 1<<63 | math.Float64bits(r.weight[u])
	}
	if r.toSeeds[u] <= 0 { // rounding ate a tiny weight next to large ones
		return math.Float64bits(math.Inf(1))
	}
	return math.Float64bits(r.weight[u] / r.toSeeds[u])
}

type bsrItem struct {
	key  uint64
	node int32
}

// above orders BSR candidates: higher key first, then the earlier node.
func (a bsrItem) above(b bsrItem) bool {
	return a.key > b.key || a.key == b.key && a.node < b.node
}

// bsrQueue is an indexed binary max-heap of the nodes not yet considered; pos[u] is u's
// place in it (-1 once popped), so a node whose key changes is moved in place.
type bsrQueue struct {
	items []bsrItem
	pos   []int32
}

func newBSRQueue(r *ripple) *bsrQueue {
	n := r.g.N()
	q := &bsrQueue{items: make([]bsrItem, n), pos: make([]int32, n)}
	for u := range int32(n) {
		q.items[u], q.pos[u] = bsrItem{r.bsrKey(u), u}, u
	}
	for i := n/2 - 1; i >= 0; i-- {
		q.down(i)
	}
	return q
}

// update gives u a new key if it is still queued.
func (q *bsrQueue) update(u int32, key uint64) {
	i := q.pos[u]
	if i < 0 {
		return
	}
	old := q.items[i].key
	q.items[i].key = key
	if key > old {
		q.up(int(i))
	} else {
		q.down(int(i))
	}
}

func (q *bsrQueue) pop() int32 {
	top := q.items[0].node
	last := len(q.items) - 1
	q.set(0, q.items[last])
	q.items = q.items[:last]
	q.pos[top] = -1
	if last > 0 {
		q.down(0)
	}
	return top
}

func (q *bsrQueue) set(i int, it bsrItem) {
	q.items[i] = it
	q.pos[it.node] = int32(i)
}

func (q *bsrQueue) up(i int) {
	it := q.items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !it.above(q.items[p]) {
			break
		}
		q.set(i, q.items[p])
		i = p
	}
	q.set(i, it)
}

func (q *bsrQueue) down(i int) {
	it := q.items[i]
	n := len(q.items)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && q.items[c+1].above(q.items[c]) {
			c++
		}
		if !q.items[c].above(it) {
			break
		}
		q.set(i, q.items[c])
		i = c
	}
	q.set(i, it)
}
