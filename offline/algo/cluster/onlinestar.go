package cluster

// OnlineStar maintains a star cover while the nodes of a graph arrive one at a time in
// node order, following Aslam, Pelekhov and Rus's dynamic Star insertion: inserting node
// t adds its edges to the earlier nodes, puts t and its satellite neighbours in a
// priority queue keyed by degree, and then repeatedly takes the queued node φ of highest
// degree (ties: the earlier node). If no centre adjacent to φ has a degree at least φ's,
// φ is promoted to centre and every adjacent centre (each of smaller degree) is demoted
// to satellite; the satellites of a demoted centre δ whose degree is at most δ's may have
// lost the centre that dominated them, so they are queued too.
//
// After every Step the cover is valid for the graph of the nodes inserted so far: centres
// are pairwise non-adjacent, and every satellite is adjacent to a centre of at least its
// own (current) degree.
//
// Differences from Star: the offline algorithm picks centres greedily by final degree and
// always yields the same cover for a graph; the online cover depends on arrival order,
// because a centre is only demoted when a neighbour of strictly higher degree is
// examined, so an early node that was a good centre when it arrived can stay a centre
// after a later, better-connected neighbour appears. Both satisfy the same two
// invariants, and satellites join a centre by the same rule as Star's.
//
// The graph is known in advance (the offline pass has all pairs); node t's edges to
// nodes before it are exactly the prefix of its sorted adjacency row, so the current
// graph needs no storage of its own.
type OnlineStar struct {
	g        *Graph
	next     int32   // nodes inserted so far
	deg      []int32 // degree in the current graph
	isCentre []bool
	witness  []int32 // an adjacent centre that dominated the node when last checked, or -1
	inQ      []bool
	heap     []int32 // max-heap by (deg, -node)
}

// NewOnlineStar returns an OnlineStar over g with no node inserted yet.
func NewOnlineStar(g *Graph) *OnlineStar {
	n := g.N()
	s := &OnlineStar{
		g: g, deg: make([]int32, n), isCentre: make([]bool, n),
		witness: make([]int32, n), inQ: make([]bool, n),
	}
	for i := range s.witness {
		s.witness[i] = -1
	}
	return s
}

// OnlineStarClustering inserts the nodes of g in order into an OnlineStar and returns the
// final cover's clustering; satellites join a centre by Star's rule.
func OnlineStarClustering(g *Graph) Clustering {
	s := NewOnlineStar(g)
	for s.Step() {
	}
	return s.Clustering()
}

// Inserted returns the number of nodes inserted so far.
func (s *OnlineStar) Inserted() int { return int(s.next) }

// IsCentre reports whether node u is currently a star centre.
func (s *OnlineStar) IsCentre(u int32) bool { return s.isCentre[u] }

// Degree returns the degree of node u in the graph of the nodes inserted so far.
func (s *OnlineStar) Degree(u int32) int { return int(s.deg[u]) }

// Step inserts the next node and restores the cover. It returns false, doing nothing,
// once every node has been inserted.
func (s *OnlineStar) Step() bool {
	t := s.next
	if int(t) == s.g.N() {
		return false
	}
	s.next++
	nb, _ := s.g.Neighbors(t)
	for _, b := range nb {
		if b >= t {
			break
		}
		s.deg[t]++
		s.deg[b]++
		if !s.isCentre[b] {
			s.push(b)
		}
	}
	s.push(t)
	for len(s.heap) > 0 {
		s.update(s.pop())
	}
	return true
}

// update examines a queued node: it stays a satellite if an adjacent centre's degree is at
// least its own, else it is promoted and its adjacent centres are demoted.
func (s *OnlineStar) update(phi int32) {
	if s.isCentre[phi] || s.dominated(phi) {
		return
	}
	s.isCentre[phi] = true
	s.witness[phi] = -1
	for _, d := range s.current(phi) {
		if s.isCentre[d] && d != phi {
			s.demote(d)
		}
	}
}

// dominated reports whether u has an adjacent centre of degree at least deg[u], and
// records one as u's witness. Degrees only grow and a centre only stops being one by
// demotion, so a witness stays valid until it is demoted or u's degree passes it.
func (s *OnlineStar) dominated(u int32) bool {
	if c := s.witness[u]; c >= 0 && s.isCentre[c] && s.deg[c] >= s.deg[u] {
		return true
	}
	best := int32(-1)
	for _, v := range s.current(u) {
		if s.isCentre[v] && (best < 0 || s.deg[v] > s.deg[best]) {
			best = v
		}
	}
	s.witness[u] = best
	return best >= 0 && s.deg[best] >= s.deg[u]
}

// demote makes centre d a satellite and queues the satellites it may have dominated.
func (s *OnlineStar) demote(d int32) {
	s.isCentre[d] = false
	s.witness[d] = -1
	for _, m := range s.current(d) {
		if !s.isCentre[m] && s.deg[m] <= s.deg[d] {
			s.push(m)
		}
	}
}

// current returns u's neighbours among the nodes inserted so far: the first deg[u]
// entries of its sorted row.
func (s *OnlineStar) current(u int32) []int32 {
	nb, _ := s.g.Neighbors(u)
	return nb[:s.deg[u]]
}

// Clustering returns the clustering of the nodes inserted so far: each satellite joins
// its adjacent centre of greatest edge weight, then higher current degree, then the
// earlier centre.
func (s *OnlineStar) Clustering() Clustering {
	n := int32(s.next)
	labels := make([]int32, n)
	isCentre := make([]bool, n)
	for u := range n {
		labels[u], isCentre[u] = u, s.isCentre[u]
		if isCentre[u] {
			continue
		}
		best, bw := int32(-1), float32(0)
		_, w := s.g.Neighbors(u)
		for i, v := range s.current(u) {
			if s.isCentre[v] && (best < 0 || w[i] > bw || w[i] == bw && s.deg[v] > s.deg[best]) {
				best, bw = v, w[i]
			}
		}
		if best < 0 { // impossible in a valid cover
			isCentre[u] = true
			continue
		}
		labels[u] = best
	}
	return newClustering(labels, int(n), centresOf(isCentre))
}

// push queues u unless it is already queued.
func (s *OnlineStar) push(u int32) {
	if s.inQ[u] {
		return
	}
	s.inQ[u] = true
	s.heap = append(s.heap, u)
	for i := len(s.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.above(s.heap[i], s.heap[p]) {
			break
		}
		s.heap[i], s.heap[p] = s.heap[p], s.heap[i]
		i = p
	}
}

// pop removes and returns the queued node of highest degree, ties to the earlier node.
func (s *OnlineStar) pop() int32 {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && s.above(h[c+1], h[c]) {
			c++
		}
		if !s.above(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	s.heap = h
	s.inQ[top] = false
	return top
}

// above orders the queue: higher degree first, then the earlier node.
func (s *OnlineStar) above(a, b int32) bool {
	return s.deg[a] > s.deg[b] || s.deg[a] == s.deg[b] && a < b
}
