package fim

// This file is the LCM search. A node of the search tree is a closed itemset P
// with a core item c (the item whose addition generated it; -1 at the root) and a
// conditional database: the transactions containing P, with P's items and the
// items infrequent among them removed. Items above c are the suffix of a
// transaction; items below c are its prefix, kept only to decide the
// prefix-preserving test of the node's children (and, when mining maximal
// itemsets, whether they extend an itemset frequently).
//
// A child of P is Q = closure(P ∪ {e}) for a suffix item e, kept only when Q adds
// no item below e (prefix preservation), which makes the closed itemsets a tree.
//
// Transactions with the same suffix are merged into one whose weight is their
// number. In closed mode its prefix is the intersection of theirs: an item is in
// every transaction of an occurrence set exactly when it is in every merged
// prefix, which is all the prefix test asks. In maximal mode the prefix is the
// union, each item with its own weight (how many of the merged transactions hold
// it), so that the counts of prefix items stay exact for the maximality test: an
// itemset is maximal when no item extends it frequently.

// expand mines the children of the node whose database is at depth d.
func (m *miner) expand(d int) {
	l := m.levels[d]
	m.deliver(l)
	if l.weighted && m.tailFrequent(l) {
		return
	}
	for k, e := range l.cands {
		occ := l.occ[l.cstart[k]:l.cstart[k+1]]
		if m.halted(len(occ)) {
			return
		}
		m.extend(d, e, occ)
	}
}

// tailFrequent is the look-ahead of maximal mode. Every descendant of the node P
// adds only suffix items of its database l (those are in l.cands), so when P
// with all of them is frequent, that itemset is the only candidate for
// maximality in the subtree: tailFrequent emits it if no prefix item extends it
// frequently, and reports true so that the subtree is skipped.
func (m *miner) tailFrequent(l *level) bool {
	full, s := int32(len(l.cands)), int32(0)
	for _, t := range l.txs {
		if t.end-t.mid == full {
			s += t.w
		}
	}
	if s < m.minsup {
		return false
	}
	touched, maximal := m.accTouched[:0], true
	for _, t := range l.txs {
		if t.end-t.mid == full {
			touched = l.addPrefix(t, m.acc, touched)
		}
	}
	for _, it := range touched {
		maximal = maximal && m.acc[it] < m.minsup
		m.acc[it] = 0
	}
	m.accTouched = touched
	depth := len(m.itemset)
	m.itemset = append(m.itemset, l.cands...)
	m.output(s, maximal)
	m.itemset = m.itemset[:depth]
	return true
}

// deliver builds the occurrence list of every suffix item of l in one pass.
func (m *miner) deliver(l *level) {
	cnt := m.cnt
	l.cands = l.cands[:0]
	for _, t := range l.txs {
		for _, it := range l.items[t.mid:t.end] {
			if cnt[it] == 0 {
				l.cands = append(l.cands, it)
			}
			cnt[it]++
		}
	}
	l.cstart = grow(l.cstart, len(l.cands)+1)
	total := int32(0)
	for k, it := range l.cands {
		l.cstart[k] = total
		m.pos[it] = total
		total += cnt[it]
		cnt[it] = 0
	}
	l.cstart[len(l.cands)] = total
	l.occ = grow(l.occ, int(total))
	for j, t := range l.txs {
		for _, it := range l.items[t.mid:t.end] {
			l.occ[m.pos[it]] = int32(j)
			m.pos[it]++
		}
	}
}

// extend visits closure(P ∪ {e}) for the node P at depth d, given the
// transactions of its database that contain e: it emits it and mines it when it
// is a prefix-preserving closure extension.
func (m *miner) extend(d int, e int32, occ []int32) {
	l := m.levels[d]
	var s int32
	if l.weighted {
		s = m.countWeighted(l, occ)
	} else {
		s = m.count(l, occ)
	}
	first := l.txs[occ[0]]
	for _, it := range l.items[first.beg:first.end] {
		if it >= e {
			break
		}
		if m.cnt[it] == s { // an item below e is in every occurrence: not prefix-preserving
			m.clearCounts()
			return
		}
	}
	depth := len(m.itemset)
	m.itemset = append(m.itemset, e)
	for _, it := range l.items[first.mid:first.end] {
		if it > e && m.cnt[it] == s {
			m.itemset = append(m.itemset, it)
		}
	}
	grows, extensible := m.survey(e, s)
	m.output(s, !extensible)
	if grows && m.stop == "" {
		m.project(d, e, s, occ)
		m.clearCounts()
		if m.account() {
			m.expand(d + 1)
		}
	} else {
		m.clearCounts()
	}
	m.itemset = m.itemset[:depth]
}

// count sets m.cnt to the weighted count of every item over occ and returns the
// total weight.
func (m *miner) count(l *level, occ []int32) (s int32) {
	cnt, touched := m.cnt, m.touched[:0]
	for _, j := range occ {
		t := l.txs[j]
		s += t.w
		m.work += int(t.end - t.beg)
		for _, it := range l.items[t.beg:t.end] {
			if cnt[it] == 0 {
				touched = append(touched, it)
			}
			cnt[it] += t.w
		}
	}
	m.touched = touched
	return s
}

// countWeighted is count for a database with item weights.
func (m *miner) countWeighted(l *level, occ []int32) (s int32) {
	cnt, touched := m.cnt, m.touched[:0]
	for _, j := range occ {
		t := l.txs[j]
		s += t.w
		m.work += int(t.end - t.beg)
		iw := l.iw[t.beg:t.end]
		for k, it := range l.items[t.beg:t.end] {
			if cnt[it] == 0 {
				touched = append(touched, it)
			}
			cnt[it] += iw[k]
		}
	}
	m.touched = touched
	return s
}

func (m *miner) clearCounts() {
	for _, it := range m.touched {
		m.cnt[it] = 0
	}
}

// survey tells from the counts of an extension with support s whether it has
// children to mine (a frequent item above e not in its closure) and whether any
// item at all extends it frequently.
func (m *miner) survey(e, s int32) (grows, extensible bool) {
	for _, it := range m.touched {
		if c := m.cnt[it]; c >= m.minsup && c < s {
			extensible = true
			if it > e {
				return true, true
			}
		}
	}
	return false, extensible
}

// project writes the conditional database of closure(P ∪ {e}) to depth d+1: the
// transactions of occ without the closure's items and without items infrequent
// among them, split into prefix and suffix at e.
func (m *miner) project(d int, e, s int32, occ []int32) {
	l, c := m.levels[d], m.level(d+1)
	c.reset(len(occ), l.weighted)
	cnt, minsup := m.cnt, m.minsup
	if !l.weighted {
		for _, j := range occ {
			t := l.txs[j]
			beg, mid := len(c.items), -1
			for _, it := range l.items[t.beg:t.end] {
				if n := cnt[it]; n >= minsup && n < s {
					if mid < 0 && it > e {
						mid = len(c.items)
					}
					c.items = append(c.items, it)
				}
			}
			if mid < 0 {
				mid = len(c.items)
			}
			c.pushClosed(beg, mid, t.w)
		}
		return
	}
	for _, j := range occ {
		t := l.txs[j]
		beg, mid := len(c.items), -1
		for k := t.beg; k < t.end; k++ {
			if it, n := l.items[k], cnt[l.items[k]]; n >= minsup && n < s {
				if mid < 0 && it > e {
					mid = len(c.items)
				}
				c.items, c.iw = append(c.items, it), append(c.iw, l.iw[k])
			}
		}
		if mid < 0 {
			mid = len(c.items)
		}
		c.pushCounted(beg, mid, t.w)
	}
	m.accTouched = c.mergeCounted(m.acc, m.accTouched)
}
