package fim

import "slices"

// tx is one transaction of a conditional database.
type tx struct {
	beg, mid, end int32 // items[beg:mid] is the prefix, items[mid:end] the suffix
	w             int32 // how many original transactions it stands for
	next          int32 // maximal mode, while building: 1 + index in level.more of the next transaction to merge in
}

// level holds the conditional database of the node at one depth, and buffers
// reused by every node at that depth.
type level struct {
	weighted bool // whether items carry weights: maximal mode
	items    []int32
	iw       []int32 // when weighted, the weight of each entry of items
	txs      []tx
	more     []tx    // maximal mode, while building: transactions waiting to be merged into one of txs
	table    []int32 // open-addressing hash of suffixes: 1 + index into txs, 0 empty
	occ      []int32 // occurrence lists of the candidates, back to back
	cands    []int32 // the suffix items, in order of first appearance
	cstart   []int32 // the occurrences of cands[k] are occ[cstart[k]:cstart[k+1]]
}

// bytes approximates the memory the level holds.
func (l *level) bytes() int64 {
	n := cap(l.items) + cap(l.iw) + cap(l.table) + cap(l.occ) + cap(l.cands) + cap(l.cstart)
	return 4*int64(n) + 20*int64(cap(l.txs)+cap(l.more))
}

// reset empties the level for a database of at most n transactions, with item
// weights or not.
func (l *level) reset(n int, weighted bool) {
	l.weighted = weighted
	l.items, l.iw = l.items[:0], l.iw[:0]
	l.txs, l.more = l.txs[:0], l.more[:0]
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(l.table) < size {
		l.table = make([]int32, size)
	} else {
		l.table = l.table[:size]
		clear(l.table)
	}
}

// push adds the transaction written last, items[beg:] with its prefix ending at
// mid, and returns the transaction with the same suffix already there, if any.
// A transaction with no suffix is dropped: no extension can reach it.
func (l *level) push(beg, mid int, w int32) (same *tx) {
	end := len(l.items)
	if mid == end {
		l.items = l.items[:beg]
		if l.weighted {
			l.iw = l.iw[:beg]
		}
		return nil
	}
	key := l.items[mid:end]
	mask := uint32(len(l.table) - 1)
	for h := hash(key) & mask; ; h = (h + 1) & mask {
		k := l.table[h]
		if k == 0 {
			l.txs = append(l.txs, tx{beg: int32(beg), mid: int32(mid), end: int32(end), w: w})
			l.table[h] = int32(len(l.txs))
			return nil
		}
		t := &l.txs[k-1]
		if slices.Equal(key, l.items[t.mid:t.end]) {
			return t
		}
	}
}

// pushClosed adds the transaction written last, merging it into one with the
// same suffix by intersecting their prefixes.
func (l *level) pushClosed(beg, mid int, w int32) {
	if t := l.push(beg, mid, w); t != nil {
		t.w += w
		t.beg = l.intersect(t.beg, t.mid, l.items[beg:mid])
		l.items = l.items[:beg]
	}
}

// pushCounted adds the transaction written last, with its item weights in iw,
// queueing it for merging into one with the same suffix; mergeCounted merges.
func (l *level) pushCounted(beg, mid int, w int32) {
	if t := l.push(beg, mid, w); t != nil {
		l.more = append(l.more, tx{beg: int32(beg), mid: int32(mid), end: int32(len(l.items)), w: w, next: t.next})
		t.next = int32(len(l.more))
	}
}

// mergeCounted merges the transactions queued by pushCounted: each group gets
// the union of the prefixes with summed weights, rewritten at the end of items.
// acc is per-item scratch, zero on entry and on return.
func (l *level) mergeCounted(acc []int32, touched []int32) []int32 {
	for g := range l.txs {
		t := &l.txs[g]
		if t.next == 0 {
			continue
		}
		touched = l.addPrefix(*t, acc, touched[:0])
		w := t.w
		for n := t.next; n != 0; n = l.more[n-1].next {
			touched = l.addPrefix(l.more[n-1], acc, touched)
			w += l.more[n-1].w
		}
		slices.Sort(touched)
		beg := len(l.items)
		for _, it := range touched {
			l.items, l.iw = append(l.items, it), append(l.iw, acc[it])
			acc[it] = 0
		}
		mid := len(l.items)
		for k := t.mid; k < t.end; k++ {
			l.items, l.iw = append(l.items, l.items[k]), append(l.iw, w)
		}
		*t = tx{beg: int32(beg), mid: int32(mid), end: int32(len(l.items)), w: w}
	}
	return touched
}

// addPrefix adds the prefix weights of t to acc.
func (l *level) addPrefix(t tx, acc []int32, touched []int32) []int32 {
	for k := t.beg; k < t.mid; k++ {
		it := l.items[k]
		if acc[it] == 0 {
			touched = append(touched, it)
		}
		acc[it] += l.iw[k]
	}
	return touched
}

// intersect keeps in items[beg:mid] only the items also in b, moving them to the
// end of the range, and returns the new beginning. Both lists are ascending.
func (l *level) intersect(beg, mid int32, b []int32) int32 {
	w, ia, ib := mid, mid-1, len(b)-1
	for ia >= beg && ib >= 0 {
		x, y := l.items[ia], b[ib]
		switch {
		case x == y:
			w--
			l.items[w] = x
			ia--
			ib--
		case x > y:
			ia--
		default:
			ib--
		}
	}
	return w
}

func hash(s []int32) uint32 {
	h := uint32(2166136261)
	for _, v := range s {
		h = (h ^ uint32(v)) * 16777619
	}
	return h ^ h>>15
}

// grow returns s resized to n, reallocated only when too small.
func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}
