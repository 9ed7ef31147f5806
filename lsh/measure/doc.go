// Package measure holds the exact similarity measures used to verify and
// explain verdicts: weighted Jaccard and cosine over term vectors (tf or
// tf-idf), and edit similarity over word sequences. Its functions are pure
// and safe for concurrent use.
package measure
