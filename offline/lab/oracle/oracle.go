package oracle

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/dedupstream/dedupstream/lsh"
)

// DefaultMaxDocFreq is the document-frequency cap used when Options.MaxDocFreq is 0.
const DefaultMaxDocFreq = 1000

// Options configures Pairs. The zero value reports every pair sharing an indexed
// shingle, with the default cap.
type Options struct {
	// Threshold selects the pairs reported: those whose larger containment,
	// |A∩B| / min(|A|, |B|), is at least Threshold. Containment is never below
	// resemblance, so this includes every pair with resemblance ≥ Threshold; filter
	// on Pair.Resemblance for those alone. 0 reports every candidate pair.
	Threshold float64
	// MaxDocFreq skips shingles held by more documents than this (see the package
	// documentation); 0 means DefaultMaxDocFreq, a negative value no cap.
	MaxDocFreq int
	// Workers is the number of goroutines counting; 0 means GOMAXPROCS.
	Workers int
}

// Pair is one reported pair: documents A < B (indexes into the sets passed to
// Pairs) and their exact overlap, whose methods give resemblance and containments.
type Pair struct {
	A, B int
	lsh.Overlap
}

// Stats describes one run of Pairs.
type Stats struct {
	Docs       int   // sets indexed
	Shingles   int   // distinct shingles
	Skipped    int   // distinct shingles over the document-frequency cap
	SkipPairs  int64 // Σ df(df−1)/2 over skipped shingles: pair visits avoided
	Visits     int64 // pair visits made: Σ df(df−1)/2 over indexed shingles
	Candidates int64 // pairs sharing at least one indexed shingle
	Merged     int64 // candidates whose intersection was completed by a merge
	Reported   int
	// Unsure counts documents whose skipped shingles alone could reach the
	// threshold: a pair of two of them sharing only skipped shingles would be
	// missed. 0 means the report is complete.
	Unsure int
}

// Pairs returns every pair of sets sharing an indexed shingle whose larger
// containment reaches opt.Threshold, with exact overlaps, ordered by (A, B). Each
// set must be sorted ascending without repeats (lsh.SortedSet).
func Pairs(sets [][]uint64, opt Options) ([]Pair, Stats, error) {
	for i, s := range sets {
		for k := 1; k < len(s); k++ {
			if s[k-1] >= s[k] {
				return nil, Stats{}, fmt.Errorf("oracle: set %d is not strictly ascending at %d", i, k)
			}
		}
	}
	if opt.MaxDocFreq == 0 {
		opt.MaxDocFreq = DefaultMaxDocFreq
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	ix := buildIndex(sets, opt.MaxDocFreq)
	st := ix.stats
	for i, s := range sets {
		if ix.skipped[i] > 0 && float64(ix.skipped[i])/float64(len(s)) >= opt.Threshold {
			st.Unsure++
		}
	}
	pairs := ix.count(sets, opt, &st)
	st.Reported = len(pairs)
	return pairs, st, nil
}

// index is the inverted index over the shingles within the cap that at least two
// documents hold, in compressed-row form both ways.
type index struct {
	postStart []int    // postings of shingle s: post[postStart[s]:postStart[s+1]]
	post      []uint32 // document ids, ascending within a shingle
	docStart  []int    // shingles of document d: docSh[docStart[d]:docStart[d+1]]
	docSh     []uint32
	skipped   []int // per document: how many of its shingles were skipped
	stats     Stats
}

type posting struct {
	fp  uint64
	doc uint32
}

func buildIndex(sets [][]uint64, maxDF int) *index {
	total := 0
	for _, s := range sets {
		total += len(s)
	}
	all := make([]posting, 0, total)
	for d, s := range sets {
		for _, fp := range s {
			all = append(all, posting{fp, uint32(d)})
		}
	}
	slices.SortFunc(all, func(a, b posting) int {
		return cmp.Or(cmp.Compare(a.fp, b.fp), cmp.Compare(a.doc, b.doc))
	})
	ix := &index{skipped: make([]int, len(sets)), postStart: []int{0}}
	ix.stats.Docs = len(sets)
	perDoc := make([]int, len(sets)+1)
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].fp == all[i].fp {
			j++
		}
		ix.add(all[i:j], maxDF, perDoc)
		i = j
	}
	ix.invert(perDoc)
	return ix
}

// add indexes or skips the postings of one shingle.
func (ix *index) add(ps []posting, maxDF int, perDoc []int) {
	ix.stats.Shingles++
	df := int64(len(ps))
	if maxDF >= 0 && len(ps) > maxDF {
		ix.stats.Skipped++
		ix.stats.SkipPairs += df * (df - 1) / 2
		for _, p := range ps {
			ix.skipped[p.doc]++
		}
		return
	}
	if len(ps) < 2 {
		return
	}
	ix.stats.Visits += df * (df - 1) / 2
	for _, p := range ps {
		ix.post = append(ix.post, p.doc)
		perDoc[p.doc+1]++
	}
	ix.postStart = append(ix.postStart, len(ix.post))
}

// invert builds the per-document shingle lists from the postings.
func (ix *index) invert(perDoc []int) {
	for d := 1; d < len(perDoc); d++ {
		perDoc[d] += perDoc[d-1]
	}
	ix.docStart = perDoc
	ix.docSh = make([]uint32, len(ix.post))
	fill := slices.Clone(perDoc[:len(perDoc)-1])
	for s := 0; s+1 < len(ix.postStart); s++ {
		for _, d := range ix.post[ix.postStart[s]:ix.postStart[s+1]] {
			ix.docSh[fill[d]] = uint32(s)
			fill[d]++
		}
	}
}

// count runs the workers, each over every Workers-th document, and merges their
// pairs.
func (ix *index) count(sets [][]uint64, opt Options, st *Stats) []Pair {
	parts := make([][]Pair, opt.Workers)
	counts := make([]Stats, opt.Workers)
	var wg sync.WaitGroup
	for w := range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := counter{ix: ix, sets: sets, opt: opt, cnt: make([]int32, len(sets))}
			for a := w; a < len(sets); a += opt.Workers {
				parts[w] = c.pairsOf(parts[w], a, &counts[w])
			}
		}()
	}
	wg.Wait()
	var pairs []Pair
	for w := range parts {
		pairs = append(pairs, parts[w]...)
		st.Candidates += counts[w].Candidates
		st.Merged += counts[w].Merged
	}
	slices.SortFunc(pairs, func(x, y Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	return pairs
}

// counter is one worker's scratch: shared-shingle counts per later document.
type counter struct {
	ix      *index
	sets    [][]uint64
	opt     Options
	cnt     []int32
	touched []uint32
}

// pairsOf appends the reported pairs (a, b) with b > a.
func (c *counter) pairsOf(dst []Pair, a int, st *Stats) []Pair {
	ix := c.ix
	c.touched = c.touched[:0]
	for _, s := range ix.docSh[ix.docStart[a]:ix.docStart[a+1]] {
		post := ix.post[ix.postStart[s]:ix.postStart[s+1]]
		first, _ := slices.BinarySearch(post, uint32(a)+1)
		for _, b := range post[first:] {
			if c.cnt[b] == 0 {
				c.touched = append(c.touched, b)
			}
			c.cnt[b]++
		}
	}
	st.Candidates += int64(len(c.touched))
	for _, b := range c.touched {
		if p, ok := c.pair(a, int(b), int(c.cnt[b]), st); ok {
			dst = append(dst, p)
		}
		c.cnt[b] = 0
	}
	return dst
}

// pair completes the overlap of a candidate and decides whether it is reported.
func (c *counter) pair(a, b, shared int, st *Stats) (Pair, bool) {
	sa, sb := c.sets[a], c.sets[b]
	small := float64(min(len(sa), len(sb)))
	extra := min(c.ix.skipped[a], c.ix.skipped[b]) // skipped shingles both may share
	if float64(shared+extra)/small < c.opt.Threshold {
		return Pair{}, false
	}
	o := lsh.Overlap{Inter: shared, SizeA: len(sa), SizeB: len(sb)}
	if extra > 0 {
		o = lsh.OverlapOf(sa, sb)
		st.Merged++
	}
	if float64(o.Inter)/small < c.opt.Threshold { // = max(o.AinB(), o.BinA())
		return Pair{}, false
	}
	return Pair{A: a, B: b, Overlap: o}, true
}

// Sets shingles each text with sh (defaults applied) and returns the sorted sets.
func Sets(texts [][]byte, sh lsh.Shingling) [][]uint64 {
	sh.EnsureDefaults()
	sets := make([][]uint64, len(texts))
	for i, t := range texts {
		sets[i] = lsh.SortedSet(sh.Append(nil, t))
	}
	return sets
}
