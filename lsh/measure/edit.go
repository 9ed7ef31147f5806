package measure

// Levenshtein returns the edit distance between two token sequences (for
// example word fingerprints from AppendWords): the fewest insertions,
// deletions and substitutions of one token that turn a into b. It keeps two
// rows of the dynamic programme, O(min(|a|,|b|)) memory and O(|a|·|b|)
// time.
func Levenshtein(a, b []uint64) int {
	d, _ := LevenshteinWithin(a, b, max(len(a), len(b)))
	return d
}

// LevenshteinWithin returns the edit distance between a and b if it is at
// most limit, and (limit+1, false) otherwise. Only the diagonal band of
// half-width limit is computed (Ukkonen's cut-off), so it costs
// O(limit·min(|a|,|b|)) time: the cheap way to ask "is the edit similarity
// at least t", where limit = floor((1−t)·max(|a|,|b|)).
func LevenshteinWithin(a, b []uint64, limit int) (int, bool) {
	if len(a) < len(b) {
		a, b = b, a // b is the shorter: rows have len(b)+1 cells
	}
	if limit < 0 || len(a)-len(b) > limit {
		return limit + 1, false
	}
	inf := limit + 1
	prev := make([]int, 2*(len(b)+1))
	cur := prev[len(b)+1:]
	prev = prev[:len(b)+1]
	for j := range prev {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		if lo > 1 {
			cur[lo-1] = inf
		} else {
			cur[0] = min(i, inf)
		}
		best := cur[lo-1]
		for j := lo; j <= hi; j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			c := min(sub, prev[j]+1, cur[j-1]+1, inf)
			cur[j] = c
			best = min(best, c)
		}
		if hi < len(b) {
			cur[hi+1] = inf
		}
		if best >= inf {
			return inf, false
		}
		prev, cur = cur, prev
	}
	if d := prev[len(b)]; d <= limit {
		return d, true
	}
	return inf, false
}

// EditSimilarity returns 1 − Levenshtein(a, b)/max(|a|, |b|), 1 for two
// empty sequences.
func EditSimilarity(a, b []uint64) float64 {
	n := max(len(a), len(b))
	if n == 0 {
		return 1
	}
	return 1 - float64(Levenshtein(a, b))/float64(n)
}

// EditSimilarityAtLeast reports whether EditSimilarity(a, b) >= t, and the
// similarity when it is, computing only the band of the dynamic programme
// that decides it.
func EditSimilarityAtLeast(a, b []uint64, t float64) (float64, bool) {
	n := max(len(a), len(b))
	if n == 0 {
		return 1, t <= 1
	}
	limit := int((1 - t) * float64(n) * (1 + 1e-12))
	d, ok := LevenshteinWithin(a, b, limit)
	if !ok {
		return 0, false
	}
	s := 1 - float64(d)/float64(n)
	return s, s >= t
}
