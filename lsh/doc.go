// Package lsh turns normalised text into sketches and index keys, and
// estimates from two sketches how alike their documents are. It imports no
// other package of this module; cleaning lives in lsh/clean and the exact
// measures that explain a verdict in lsh/measure.
//
// # Methods
//
// A [Method] is one way of sketching documents, as the pipeline uses it:
// Sketch the normalised text once (an encoded sketch and its index keys),
// look the keys up in an index, and Compare the encoded sketches of each
// candidate, which gives an [Estimate] and the method's own verdict, Near.
// [NewMethod] builds one from a [Config]; [MethodNames] lists them:
//
//   - minhash: the minima of n permutations ([Sketcher]), LSH band keys;
//   - bottomk: the n smallest fingerprints of one permutation ([BottomK]);
//   - oph: one-permutation hashing with optimal densification;
//   - modm: every fingerprint ≡ 0 (mod m) ([ModM]), a sample that sizes
//     with the page and so estimates containment;
//   - full: the whole fingerprint set, exact;
//   - supershingle: Fetterly's super- and mega-shingles;
//   - simhash: Charikar's 64-bit SimHash, keys from its bit tables;
//   - imatch: the I-Match lexical signature over a vocab.Vocabulary (lsh/vocab).
//
// Config.Contain gives minhash and oph the contained verdict with a
// floored mod-m sample beside their own sketch; Config.Verify makes a
// second, stricter Method verify the first's candidates (the sketch holds
// both). [RecordMethod] sketches structured records field by field. Every
// Method is immutable and safe for concurrent use; each goroutine brings
// its own [Scratch], whose buffers Sketch reuses from call to call.
//
// # Text and shingles
//
// Text must be normalised (see lsh/clean): words separated by exactly one
// ASCII space, no leading or trailing space. A [Shingling] cuts it into
// windows of words (or runes, with character n-grams), optionally after
// dropping stop words and stemming; a window of w consecutive words is then
// one contiguous byte span, and its fingerprint is xxhash64 of that span,
// computed without copying. Every Method but imatch sketches these
// fingerprints.
//
// # Hashing scheme of minhash
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
// datasketch's MinHashLSH does. [AutoBands], which Params.EnsureDefaults uses
// when neither bands nor rows is set, takes the same objective over at most
// max_bands (10) bands of at least 2 rows: every band is an index key each
// page writes and looks up, while a false-positive candidate is only verified.
package lsh
