package cluster

import "slices"

// Clustering puts every node of a graph in exactly one cluster; singletons are clusters.
type Clustering struct {
	// Labels[u] is the cluster of node u. Clusters are numbered 0..K-1 in the order of
	// their earliest (smallest) node, so node 0 is always in cluster 0 and the same
	// partition always gets the same labels.
	Labels []int32
	// K is the number of clusters.
	K int
	// Centres lists, in increasing order, the nodes the algorithm made cluster centres
	// (Center, Merge-Center, Star, online Star, Ricochet seeds). Every cluster holds at
	// least one and a singleton is its own centre; a Merge-Center cluster can hold
	// several. Nil for algorithms without centres.
	Centres []int32
}

// Sizes returns the number of nodes in each cluster, indexed by label.
func (c Clustering) Sizes() []int32 {
	s := make([]int32, c.K)
	for _, l := range c.Labels {
		s[l]++
	}
	return s
}

// Clusters returns the members of each cluster, indexed by label, each in increasing
// order; Clusters()[l][0] is cluster l's earliest node. The inner slices share one
// backing array.
func (c Clustering) Clusters() [][]int32 {
	start := make([]int32, c.K+1)
	for _, l := range c.Labels {
		start[l+1]++
	}
	for l := range c.K {
		start[l+1] += start[l]
	}
	all := make([]int32, len(c.Labels))
	next := slices.Clone(start[:c.K])
	for u, l := range c.Labels {
		all[next[l]] = int32(u)
		next[l]++
	}
	out := make([][]int32, c.K)
	for l := range out {
		out[l] = all[start[l]:start[l+1]:start[l+1]]
	}
	return out
}

// FromLabels makes a Clustering of any labelling of the nodes (each label in
// [0, k)): the labels are renumbered in place in the order of each cluster's
// smallest node, as Clustering requires.
func FromLabels(labels []int32, k int) Clustering { return newClustering(labels, k, nil) }

// newClustering relabels labels in place so that clusters are numbered in order of their
// smallest node. Every label must be in [0, maxLabel). centres may be nil; it is sorted in
// place and kept.
func newClustering(labels []int32, maxLabel int, centres []int32) Clustering {
	remap := make([]int32, maxLabel)
	for i := range remap {
		remap[i] = -1
	}
	k := int32(0)
	for u, l := range labels {
		if remap[l] < 0 {
			remap[l] = k
			k++
		}
		labels[u] = remap[l]
	}
	if centres != nil {
		slices.Sort(centres)
	}
	return Clustering{Labels: labels, K: int(k), Centres: centres}
}

// centresOf lists the nodes for which isCentre is true.
func centresOf(isCentre []bool) []int32 {
	out := make([]int32, 0, len(isCentre)/4)
	for u, c := range isCentre {
		if c {
			out = append(out, int32(u))
		}
	}
	return out
}
