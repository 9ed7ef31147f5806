package offline

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/algo/fim"
	"github.com/dedupstream/dedupstream/state"
)

// fpContext is the fingerprints × documents context, reduced to the
// fingerprints two or more documents share, each distinct document list kept
// once with the number of fingerprints that have it.
type fpContext struct {
	n     int     // documents (nodes 0..n-1)
	items []int32 // transaction i is items[off[i]:off[i+1]], nodes ascending
	off   []int
	w     []int32
	index map[uint64]int32 // hash of a document list → its first transaction
	chain []int32          // next transaction with the same hash, -1 at the end
	stats ContextStats
}

// pair is one fingerprint of one document.
type pair struct {
	fp   uint64
	node int32
}

// pairBytes is the size of a pair in memory.
const pairBytes = 16

// buildContext reads the documents (first pass), then sorts and merges their
// fingerprints in as many passes as the memory budget needs: pass p keeps the
// fingerprints whose hash is p modulo the number of passes.
func buildContext(ctx context.Context, st *state.Store, m lsh.Method, o ClosedOptions) (*fpContext, *docTable, error) {
	docs := &docTable{}
	var total int64
	var fps []uint64
	err := st.Scan(func(d state.Doc) error {
		if err := docs.add(ctx, d, o.Progress); err != nil {
			return err
		}
		var err error
		if fps, err = lsh.Fingerprints(m, fps[:0], d.Sketch); err != nil {
			return fmt.Errorf("document %d: %w", d.Seq, err)
		}
		total += int64(len(fps))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	budget := int64(DefaultSortMemory)
	if o.SortMemory > 0 {
		budget = max(o.SortMemory, pairBytes)
	}
	passes := int(max(1, (total*pairBytes+budget-1)/budget))
	cx := &fpContext{n: len(docs.seqs), off: []int{0}, index: make(map[uint64]int32)}
	cx.stats = ContextStats{Fingerprints: total, Passes: passes}
	pairs := make([]pair, 0, min(total, budget/pairBytes+1))
	for p := range passes {
		if pairs, err = readPairs(ctx, st, m, docs, pairs[:0], uint64(p), uint64(passes)); err != nil {
			return nil, nil, err
		}
		cx.merge(pairs)
	}
	return cx, docs, nil
}

// readPairs appends the pairs of pass p of n, sorted by fingerprint, then node.
func readPairs(ctx context.Context, st *state.Store, m lsh.Method, docs *docTable, pairs []pair, p, n uint64) ([]pair, error) {
	var fps []uint64
	read := 0
	err := st.Scan(func(d state.Doc) error {
		if read++; read%10_000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		node, ok := docs.node(d.Seq)
		if !ok {
			return nil // stored after the first pass
		}
		var err error
		if fps, err = lsh.Fingerprints(m, fps[:0], d.Sketch); err != nil {
			return fmt.Errorf("document %d: %w", d.Seq, err)
		}
		for _, fp := range fps {
			if n == 1 || (fp*0x9e3779b97f4a7c15)>>32%n == p {
				pairs = append(pairs, pair{fp, node})
			}
		}
		return nil
	})
	slices.SortFunc(pairs, func(a, b pair) int { return cmp.Or(cmp.Compare(a.fp, b.fp), cmp.Compare(a.node, b.node)) })
	return pairs, err
}

// merge adds the document list of every fingerprint of the sorted pairs that
// two or more documents hold.
func (cx *fpContext) merge(pairs []pair) {
	var members []int32
	for lo := 0; lo < len(pairs); {
		hi := lo + 1
		for hi < len(pairs) && pairs[hi].fp == pairs[lo].fp {
			hi++
		}
		if hi-lo >= 2 {
			members = members[:0]
			for _, p := range pairs[lo:hi] {
				if len(members) == 0 || members[len(members)-1] != p.node {
					members = append(members, p.node)
				}
			}
			if len(members) >= 2 {
				cx.add(members, 1)
				cx.stats.Shared++
			}
		}
		lo = hi
	}
	cx.stats.Distinct = len(cx.w)
}

// add counts w more fingerprints held by exactly the documents members.
func (cx *fpContext) add(members []int32, w int32) {
	h := hashNodes(members)
	head, ok := cx.index[h]
	for k := head; ok && k >= 0; k = cx.chain[k] {
		if slices.Equal(cx.tx(int(k)), members) {
			cx.w[k] += w
			return
		}
	}
	next := int32(-1)
	if ok {
		next = head
	}
	cx.index[h] = int32(len(cx.w))
	cx.chain = append(cx.chain, next)
	cx.items = append(cx.items, members...)
	cx.off = append(cx.off, len(cx.items))
	cx.w = append(cx.w, w)
}

func (cx *fpContext) tx(i int) []int32 { return cx.items[cx.off[i]:cx.off[i+1]] }

func hashNodes(nodes []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range nodes {
		h = (h ^ uint64(uint32(v))) * 1099511628211
	}
	return h
}

// prune removes, until none is left, the documents that fewer than minCommon
// shared fingerprints hold: they are in no frequent set of two documents.
// Transactions left with fewer than two documents go.
func (cx *fpContext) prune(minCommon int32) {
	cx.index, cx.chain = nil, nil
	count := make([]int32, cx.n)
	for {
		clear(count)
		for i := range cx.w {
			for _, u := range cx.tx(i) {
				count[u] += cx.w[i]
			}
		}
		items, off, w := cx.items[:0], []int{0}, cx.w[:0]
		changed := false
		for i := range cx.w {
			beg, wi := len(items), cx.w[i]
			for _, u := range cx.items[cx.off[i]:cx.off[i+1]] {
				if count[u] >= minCommon {
					items = append(items, u)
				} else {
					changed = true
				}
			}
			if len(items)-beg < 2 {
				items = items[:beg]
				continue
			}
			off, w = append(off, len(items)), append(w, wi)
		}
		cx.items, cx.off, cx.w = items, off, w
		if !changed {
			return
		}
	}
}

// documents counts the distinct documents in the context.
func (cx *fpContext) documents() int {
	seen := make([]bool, cx.n)
	n := 0
	for _, u := range cx.items {
		if !seen[u] {
			seen[u] = true
			n++
		}
	}
	return n
}

// components groups the transactions by the connected component of their
// documents, components ordered by their earliest document.
func (cx *fpContext) components() [][]int {
	parent := make([]int32, cx.n)
	for u := range parent {
		parent[u] = int32(u)
	}
	find := func(u int32) int32 {
		for parent[u] != u {
			parent[u] = parent[parent[u]] // path halving
			u = parent[u]
		}
		return u
	}
	for i := range cx.w {
		t := cx.tx(i)
		a := find(t[0])
		for _, u := range t[1:] {
			if b := find(u); b != a {
				a, b = min(a, b), max(a, b)
				parent[b] = a // the root is the component's earliest document
			}
		}
	}
	byRoot := make(map[int32][]int)
	var roots []int32
	for i := range cx.w {
		r := find(cx.tx(i)[0])
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], i)
	}
	slices.Sort(roots)
	comps := make([][]int, len(roots))
	for k, r := range roots {
		comps[k] = byRoot[r]
	}
	return comps
}

// dataset builds the weighted fim.Dataset of a component, its documents
// renumbered 0..n-1; nodes maps them back.
func (cx *fpContext) dataset(comp []int) (*fim.Dataset, []int32, error) {
	var nodes []int32
	for _, i := range comp {
		nodes = append(nodes, cx.tx(i)...)
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	tx := make([][]int32, len(comp))
	w := make([]int32, len(comp))
	for k, i := range comp {
		t := make([]int32, 0, cx.off[i+1]-cx.off[i])
		for _, u := range cx.tx(i) {
			local, _ := slices.BinarySearch(nodes, u)
			t = append(t, int32(local))
		}
		tx[k], w[k] = t, cx.w[i]
	}
	ds, err := fim.NewWeightedDataset(tx, w)
	return ds, nodes, err
}
