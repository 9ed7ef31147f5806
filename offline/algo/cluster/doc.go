// Package cluster groups documents into near-duplicate clusters from a graph of verified
// similar pairs.
//
// A Graph is immutable once built and safe for concurrent use; every algorithm reads it
// without writing and keeps its working state local, so several algorithms may run on one
// Graph at once. An OnlineStar is not safe for concurrent use.
//
// Nodes are dense integers 0..n-1 in arrival order: node i arrived before node j when
// i < j (callers map document ids or stored sequence numbers onto them). Center,
// Merge-Center, online Star and the tie-breaks of the others depend on that order, which
// is what makes every algorithm here deterministic: the same graph gives the same
// clustering, and clusters are numbered by their earliest node.
//
// The algorithms, by the names ByName accepts:
//
//   - components: connected components (the transitive closure of the pairs).
//   - center: Center clustering; a single scan of the edges by decreasing weight.
//   - merge-center: Center, merging two clusters when a member of one is similar to the
//     centre of the other.
//   - star: Aslam et al.'s Star clustering (greedy centres of highest degree).
//   - online-star: Aslam et al.'s dynamic Star, nodes inserted in arrival order.
//   - ricochet-sr, ricochet-bsr: Wijaya and Bressan's Ricochet sequential rippling and its
//     balanced variant ("ricochet" is an alias of ricochet-sr).
//   - biconnected: articulation-point clustering by biconnected components.
//
// Each algorithm's documentation states its tie-breaks and how a node that several
// clusters could claim is assigned.
package cluster
