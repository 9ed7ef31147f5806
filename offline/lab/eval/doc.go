// Package eval measures how well the sketch methods of package lsh find labelled
// near-duplicates, in process and without Kafka; its functions keep no shared state and
// are safe for concurrent use.
//
// A Corpus is a list of cleaned documents in arrival order. Run replays it for every
// (method, threshold): each document looks its keys up in an in-memory index of the
// earlier documents, verifies every candidate with the method's Compare, and is then
// inserted — the stream's lookup without its caps. The verified pairs form a graph that
// a clustering algorithm of package cluster partitions, and the result is scored against
// the ground truth with package quality: pair precision, recall and F1 of the verified
// pairs against the true pairs, and the cluster metrics Pr, Re, F1 and CPr.
//
// Exact computes the exact word-shingle resemblance and containment of every generated
// (copy, origin) pair, the ground truth that dedupstream gen writes beside its pages;
// Generate and Messages make those pages, ReadLabelled and ReadNatural read a corpus
// and its truth back, and ReadPairSide and ComparePairSides compare the duplicate
// pairs of a state, a clustering or a pair list with a reference list.
package eval
