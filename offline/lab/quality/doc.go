// Package quality scores a clustering against a ground-truth clustering and compares
// pair lists.
//
// Its functions keep no shared state and are safe for concurrent use; a Clustering is
// read-only once built and may be shared, while a PairScanner or PairWriter belongs to
// one goroutine.
//
// Scores follow the definitions of the duplicate-detection literature (DESIGN.md): for
// true clusters G and found clusters C over the documents R, each g maps to
// f(g) = argmax_c |g∩c|, and
//
//	Pr = Σ_g |g|/|R| · |f(g)∩g|/|f(g)|
//	Re = Σ_g |g|/|R| · |f(g)∩g|/|g|
//	F1 = 2·Pr·Re/(Pr+Re)
//
// together with CPr and pair precision, recall and F1, all from one contingency table of
// (true cluster, found cluster) counts: nothing is quadratic in the cluster sizes.
package quality
