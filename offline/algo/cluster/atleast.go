package cluster

// AtLeast returns the graph on the same nodes with only the edges of weight at
// least w, so that one graph built at the lowest threshold serves every higher
// one. g is not modified and the result shares no storage with it.
func (g *Graph) AtLeast(w float64) *Graph {
	h := &Graph{off: make([]int32, len(g.off))}
	for u := range int32(g.N()) {
		nb, ws := g.Neighbors(u)
		for i, v := range nb {
			if float64(ws[i]) >= w {
				h.nbr, h.w = append(h.nbr, v), append(h.w, ws[i])
			}
		}
		h.off[u+1] = int32(len(h.nbr))
	}
	return h
}
