// Command peers runs the same documents through dedupstream's in-process minhash and
// simhash paths and through other Go near-duplicate libraries with matched parameters
// (github.com/ekzhu/minhash-lsh beside minhash; github.com/mfonda/simhash, over our
// word-5-shingle set and our permuted tables, beside simhash), and prints throughput
// and pair recall/precision against the exact oracle, as ratios to the dedupstream row
// of the same family, as a Markdown table. docs/bench/peers.md says how each is run.
//
// It is a separate module so that the peers never enter dedupstream's go.mod:
//
//	cd offline/lab/peers && go run . --corpus ../../../../shared/corpora/20news-bydate.tar.gz --docs 20000
package main
