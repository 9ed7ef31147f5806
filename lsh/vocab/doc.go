// Package vocab holds a collection's word statistics — documents counted,
// and per word its document and collection frequencies, idf and normalised
// idf — as the imatch method and simhash with idf need them, with a Builder
// that counts normalised documents and a canonical text file form (WriteTo,
// Read, ReadFile). A Vocabulary is immutable and safe for concurrent use; a
// Builder is not.
package vocab
