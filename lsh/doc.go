// Package lsh turns normalised text into shingle fingerprints, MinHash
// signatures and LSH band keys, and estimates similarity from them.
//
// The pipeline is
//
//	text ──Shingles──▶ []uint64 ──Signature──▶ Signature ──BandKeys──▶ []uint64
//
// Text must be normalised (see lsh/clean): words separated by exactly one
// ASCII space, no leading or trailing space. A window of w consecutive words
// is then one contiguous byte span, and its fingerprint is xxhash64 of that
// span, computed without copying.
//
// A [Sketcher] is immutable after [NewSketcher] and safe for concurrent use
// by any number of goroutines; every method writes only to the destination
// slice its caller passes in, so steady-state use allocates nothing.
//
// # Hashing scheme
//
// Permutation i of the MinHash is the multiply-add hash
//
//	h_i(x) = uint32((a_i*x + b_i) mod 2^64 >> 32)
//
// where x is a shingle's 64-bit xxhash fingerprint, a_i is odd and a_i, b_i
// are drawn in that order from a splitmix64 stream seeded with
// [Params.Seed] (a_0, b_0, a_1, b_1, …; a_i has its low bit forced to one).
// The minimum is taken over the full 64-bit values and its top 32 bits are
// kept, which is the same as the minimum of the 32-bit hashes. Because x is
// already a well-mixed fingerprint no modulo by a prime is needed.
//
// Band key j hashes the band index j and the signature values
// sig[j*Rows:(j+1)*Rows], packed two per 64-bit word, through a chain of
// bijective 64-bit mixers, so two bands that differ in a single word never
// collide.
//
// # Choosing bands and rows
//
// [OptimalBands] picks the banding that minimises the weighted area of false
// positives and false negatives under the S-curve 1-(1-s^r)^b, as
// datasketch's MinHashLSH does.
package lsh
