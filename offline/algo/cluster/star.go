package cluster

// Star clusters g by Aslam, Pelekhov and Rus's offline Star algorithm: repeatedly take the
// unmarked node of highest degree (ties: the earlier node) as a star centre and mark it
// and its neighbours, until every node is marked. Centres are pairwise non-adjacent, and
// every other node (a satellite) is adjacent to a centre whose degree is at least its own.
//
// A satellite can be adjacent to several centres (the stars overlap). Star clustering
// proper lets it belong to all of them; here it joins exactly one, the adjacent centre
// with the greatest edge weight, ties going to the centre of higher degree and then to
// the earlier centre (the centre that the greedy scan chose first). An isolated node is
// a star of its own.
func Star(g *Graph) Clustering {
	n := g.N()
	isCentre := make([]bool, n)
	marked := make([]bool, n)
	for _, u := range byDegree(g) {
		if marked[u] {
			continue
		}
		isCentre[u], marked[u] = true, true
		nb, _ := g.Neighbors(u)
		for _, v := range nb {
			marked[v] = true
		}
	}
	return joinStars(g, isCentre)
}

// byDegree returns the nodes by decreasing degree, ties in increasing node order
// (a stable counting sort).
func byDegree(g *Graph) []int32 {
	n := g.N()
	maxDeg := 0
	for u := range int32(n) {
		maxDeg = max(maxDeg, g.Degree(u))
	}
	start := make([]int32, maxDeg+2) // start[maxDeg-d] is where degree d begins
	for u := range int32(n) {
		start[maxDeg-g.Degree(u)+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	order := make([]int32, n)
	for u := range int32(n) {
		k := maxDeg - g.Degree(u)
		order[start[k]] = u
		start[k]++
	}
	return order
}

// joinStars labels every satellite with the adjacent centre it joins: the greatest edge
// weight, then the centre of higher degree, then the earlier centre. A node adjacent to
// no centre (impossible in a star cover) is made a centre of its own.
func joinStars(g *Graph, isCentre []bool) Clustering {
	n := g.N()
	labels := make([]int32, n)
	for u := range int32(n) {
		labels[u] = u
		if isCentre[u] {
			continue
		}
		best, bw := int32(-1), float32(0)
		nb, w := g.Neighbors(u)
		for i, v := range nb {
			if isCentre[v] && (best < 0 || w[i] > bw || w[i] == bw && g.Degree(v) > g.Degree(best)) {
				best, bw = v, w[i] // v > best here, so equal degree keeps the earlier centre
			}
		}
		if best < 0 {
			isCentre[u] = true
			continue
		}
		labels[u] = best
	}
	return newClustering(labels, n, centresOf(isCentre))
}
