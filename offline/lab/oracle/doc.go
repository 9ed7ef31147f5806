// Package oracle computes the exact resemblance and containment of every pair of
// documents in a collection that share a shingle, with an inverted index instead of
// comparing all n² pairs; its functions are safe for concurrent use.
//
// It is the yardstick the sketches of package lsh are measured against: a sketch's
// recall is the share of the oracle's pairs above a threshold that it finds, its
// precision the share of its pairs that the oracle confirms.
//
// # Cost and the document-frequency cap
//
// Every pair of documents sharing a shingle s is visited once per such s, so the work
// is Σ_s df(s)·(df(s)−1)/2, where df(s) is the number of documents holding s. A few
// shingles — boilerplate ("all rights reserved"), quoted headers, wire-service
// bylines — sit in a large share of a collection and alone would make the count
// quadratic. Shingles in more than Options.MaxDocFreq documents are therefore not
// indexed (Stats.Skipped counts them and Stats.SkippedPairs the posting pairs they
// would have cost). Skipping them does not make any reported number approximate: the
// intersection of every candidate pair is completed by merging the two sets whenever
// both hold skipped shingles. What it can lose is a pair whose only shared shingles
// are skipped ones; such a pair has max containment at most
// min(skipped(A), skipped(B)) / min(|A|, |B|), so with a cap well above the size of
// real near-duplicate groups it is a pair of pages sharing nothing but boilerplate.
package oracle
