package quality

// PairCount returns the number of pairs of documents that share a cluster.
func (c *Clustering) PairCount() int64 {
	sizes := make([]int32, c.k)
	for _, l := range c.labels {
		sizes[l]++
	}
	return sumPairs(sizes)
}

// Pairs returns every pair of documents that share a cluster, sorted as
// SortPairs sorts them: PairCount pairs, so check that first for big clusters.
func (c *Clustering) Pairs() []Pair {
	ps := make([]Pair, 0, c.PairCount())
	for _, g := range c.Groups() {
		for i, a := range g {
			for _, b := range g[i+1:] {
				ps = append(ps, MakePair(a, b))
			}
		}
	}
	return SortPairs(ps)
}
