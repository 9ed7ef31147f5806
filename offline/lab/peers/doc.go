// Command peers runs the same documents through dedupstream's in-process MinHash LSH
// path and through other Go near-duplicate libraries with matched parameters, and
// prints throughput and pair recall/precision against the exact oracle, as ratios to
// dedupstream, as a Markdown table.
//
// It is a separate module so that the peers never enter dedupstream's go.mod:
//
//	cd offline/lab/peers && go run . --corpus ../../../../shared/corpora/20news-bydate.tar.gz --docs 20000
package main
