package cluster

// Components clusters g into its connected components: two nodes share a cluster when a
// path of similar pairs joins them (the transitive closure of the pairs). Every other
// algorithm here refines this partition.
func Components(g *Graph) Clustering {
	n := g.N()
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = -1
	}
	queue := make([]int32, 0, 64)
	k := int32(0)
	for s := range int32(n) {
		if labels[s] >= 0 {
			continue
		}
		labels[s] = k
		queue = append(queue[:0], s)
		for len(queue) > 0 {
			u := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			nb, _ := g.Neighbors(u)
			for _, v := range nb {
				if labels[v] < 0 {
					labels[v] = k
					queue = append(queue, v)
				}
			}
		}
		k++
	}
	// Components are found in order of their smallest node, so labels are already canonical.
	return Clustering{Labels: labels, K: int(k)}
}
