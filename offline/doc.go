// Package offline re-clusters the stored state of a stopped filter (or a
// backup): the graph of verified near-duplicate pairs by a clustering of
// offline/algo/cluster, or the closed-set clusters of the fingerprint context
// (offline/algo/fim), written back as cluster ids; offline/report describes
// the result. The evaluation lab lives in offline/lab. As DESIGN.md says, it
// reads a state the stream is not writing: a stopped filter's, or a backup.
package offline
