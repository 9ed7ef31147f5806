package measure

import (
	"math"
	"slices"
)

// TermWeight is one entry of a sparse term vector.
type TermWeight struct {
	Term   uint64 // a word or shingle fingerprint
	Weight float64
}

// TermVector is a sparse vector: entries sorted by Term, each Term once.
type TermVector []TermWeight

// TermFrequencies writes the term-frequency vector of terms (fingerprints
// in any order, one per occurrence) into dst, reusing its capacity, and
// returns it. terms is sorted in place.
func TermFrequencies(dst TermVector, terms []uint64) TermVector {
	slices.Sort(terms)
	dst = dst[:0]
	for i := 0; i < len(terms); {
		j := i + 1
		for j < len(terms) && terms[j] == terms[i] {
			j++
		}
		dst = append(dst, TermWeight{Term: terms[i], Weight: float64(j - i)})
		i = j
	}
	return dst
}

// IDF is what TFIDF needs of a vocabulary; vocab.Vocabulary implements it.
type IDF interface {
	IDF(fp uint64) float64
}

// TFIDF multiplies each weight of tf by the idf v gives its term, in place,
// and returns tf. The terms must be word fingerprints (lsh.AppendWords).
func TFIDF(v IDF, tf TermVector) TermVector {
	for i := range tf {
		tf[i].Weight *= v.IDF(tf[i].Term)
	}
	return tf
}

// WeightedJaccard returns Σ min(a_t, b_t) / Σ max(a_t, b_t) over all terms,
// the generalised Jaccard similarity of two non-negative vectors (on tf
// vectors it is the resemblance of the multisets). Two empty vectors give 0.
func WeightedJaccard(a, b TermVector) float64 {
	var lo, hi float64
	mergeVectors(a, b, func(x, y float64) {
		lo += min(x, y)
		hi += max(x, y)
	})
	if hi == 0 {
		return 0
	}
	return lo / hi
}

// Cosine returns a·b / (|a|·|b|), 0 if either vector is zero. With tf-idf
// vectors (TFIDF) it is the classic cosine over tf-idf.
func Cosine(a, b TermVector) float64 {
	var dot, na, nb float64
	mergeVectors(a, b, func(x, y float64) {
		dot += x * y
		na += x * x
		nb += y * y
	})
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// mergeVectors calls fn with the weights of every term of a or b, 0 where
// a vector lacks the term.
func mergeVectors(a, b TermVector, fn func(x, y float64)) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Term < b[j].Term:
			fn(a[i].Weight, 0)
			i++
		case i == len(a) || b[j].Term < a[i].Term:
			fn(0, b[j].Weight)
			j++
		default:
			fn(a[i].Weight, b[j].Weight)
			i++
			j++
		}
	}
}
