package vocab

import (
	"bytes"
	"iter"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Vocabulary holds collection statistics of words: how many documents were
// counted (N), and per word its document frequency df (documents containing
// it) and collection frequency cf (occurrences). Words are looked up by
// their fingerprint, xxhash64 of the word as lsh.AppendWords computes it. A
// Vocabulary is immutable and safe for concurrent use; build one with a
// Builder or read one with Read.
type Vocabulary struct {
	docs   int64
	tokens int64 // Σ cf
	terms  map[uint64]*termStat
	digest uint64
}

type termStat struct {
	df, cf int64
	last   int64 // builder only: the last document that counted this word
	word   string
}

// Docs returns N, the number of documents counted.
func (v *Vocabulary) Docs() int64 { return v.docs }

// Tokens returns the number of word occurrences counted.
func (v *Vocabulary) Tokens() int64 { return v.tokens }

// Len returns the number of distinct words.
func (v *Vocabulary) Len() int { return len(v.terms) }

// DF returns the document frequency of the word with fingerprint fp, 0 if
// it was never seen.
func (v *Vocabulary) DF(fp uint64) int64 {
	if t := v.terms[fp]; t != nil {
		return t.df
	}
	return 0
}

// CF returns the collection frequency of the word with fingerprint fp.
func (v *Vocabulary) CF(fp uint64) int64 {
	if t := v.terms[fp]; t != nil {
		return t.cf
	}
	return 0
}

// IDF returns ln(N/df) for the word with fingerprint fp. A word never seen
// counts as df = 1 (the rarest a counted word can be); an empty
// Vocabulary gives 0 for every word.
func (v *Vocabulary) IDF(fp uint64) float64 {
	if v.docs == 0 {
		return 0
	}
	return math.Log(float64(v.docs) / float64(max(v.DF(fp), 1)))
}

// NIDF returns the normalised idf, IDF/ln(N), in [0, 1]: 0 for a word in
// every document, 1 for a word in one (or none). It is 0 when N <= 1.
func (v *Vocabulary) NIDF(fp uint64) float64 {
	return v.NIDFOf(max(v.DF(fp), 1))
}

// NIDFOf is the normalised idf of a word in df ≥ 1 documents.
func (v *Vocabulary) NIDFOf(df int64) float64 {
	if v.docs <= 1 {
		return 0
	}
	return math.Log(float64(v.docs)/float64(df)) / math.Log(float64(v.docs))
}

// Stat is a word's counts: documents containing it and occurrences.
type Stat struct{ DF, CF int64 }

// All yields every counted word's fingerprint and counts, in no order.
func (v *Vocabulary) All() iter.Seq2[uint64, Stat] {
	return func(yield func(uint64, Stat) bool) {
		for fp, t := range v.terms {
			if !yield(fp, Stat{DF: t.df, CF: t.cf}) {
				return
			}
		}
	}
}

// Has reports whether the word with fingerprint fp was counted.
func (v *Vocabulary) Has(fp uint64) bool { return v.terms[fp] != nil }

// Digest returns a 64-bit hash of the Vocabulary's canonical file form:
// equal for equal statistics, whichever way they were made. Sketch versions
// that depend on the Vocabulary include it.
func (v *Vocabulary) Digest() uint64 { return v.digest }

// sortedTerms returns the terms ordered by word.
func (v *Vocabulary) sortedTerms() []*termStat {
	ts := make([]*termStat, 0, len(v.terms))
	for _, t := range v.terms {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *termStat) int { return bytes.Compare([]byte(a.word), []byte(b.word)) })
	return ts
}

// seal computes the digest; the Vocabulary is immutable afterwards.
func (v *Vocabulary) seal() *Vocabulary {
	d := xxhash.New()
	_, _ = v.WriteTo(d)
	v.digest = d.Sum64()
	return v
}

// Builder counts documents into a Vocabulary. The zero value is
// ready to use; it is not safe for concurrent use.
type Builder struct {
	v Vocabulary
}

// Add counts one normalised document (words separated by single spaces).
// Words that the file format cannot hold — empty ones (from doubled spaces)
// and ones containing a tab, newline or carriage return — are skipped.
func (b *Builder) Add(text []byte) {
	if b.v.terms == nil {
		b.v.terms = make(map[uint64]*termStat)
	}
	b.v.docs++
	for len(text) > 0 {
		word := text
		if i := bytes.IndexByte(text, ' '); i >= 0 {
			word, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if !validWord(word) {
			continue
		}
		b.count(xxhash.Sum64(word), word)
	}
}

func (b *Builder) count(fp uint64, word []byte) {
	t := b.v.terms[fp]
	if t == nil {
		t = &termStat{word: string(word)}
		b.v.terms[fp] = t
	}
	t.cf++
	b.v.tokens++
	if t.last != b.v.docs {
		t.last = b.v.docs
		t.df++
	}
}

// validWord reports whether word can be a line's last field.
func validWord(word []byte) bool {
	return len(word) > 0 && bytes.IndexAny(word, "\t\n\r") < 0
}

// Vocabulary returns the statistics counted so far, as an independent
// copy: the builder may go on counting.
func (b *Builder) Vocabulary() *Vocabulary {
	v := &Vocabulary{docs: b.v.docs, tokens: b.v.tokens, terms: make(map[uint64]*termStat, len(b.v.terms))}
	for fp, t := range b.v.terms {
		v.terms[fp] = &termStat{df: t.df, cf: t.cf, word: t.word}
	}
	return v.seal()
}
