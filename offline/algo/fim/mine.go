package fim

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"time"
)

// Mine calls emit for every frequent closed itemset of ds with at least one item,
// or with o.Maximal every frequent maximal one, with its support. items is sorted
// ascending and only valid during the call. The order of the calls is unspecified.
//
// Mine stops early, without an error, when ctx ends or a limit of o is reached, and
// the Result says how far it got. An error from emit stops Mine, which returns it.
func Mine(ctx context.Context, ds *Dataset, o Options, emit func(items []int32, support int) error) (Result, error) {
	start := time.Now()
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	if ds.TotalWeight() > math.MaxInt32 || ds.Size() > math.MaxInt32/2 {
		return Result{}, errors.New("fim: dataset too large: more than 2^31-1 transactions (weights summed) or 2^30 items in all")
	}
	m := &miner{ctx: ctx, o: o, emit: emit, minsup: int32(min(o.MinSupport, math.MaxInt32))}
	if err := ctx.Err(); err != nil {
		m.stop = err.Error()
	} else {
		m.run(ds)
	}
	res := Result{Itemsets: m.emitted, Complete: m.stop == "", Stopped: m.stop, Elapsed: time.Since(start)}
	return res, m.err
}

// miner holds the state of one Mine call. Items inside it are internal ids: the
// frequent items renumbered 0..n-1 from the least to the most frequent.
type miner struct {
	ctx    context.Context
	o      Options
	emit   func([]int32, int) error
	minsup int32

	orig       []int32  // internal id → original item
	levels     []*level // levels[d] holds the conditional database at depth d
	cnt        []int32  // per-item scratch counts, all zero between uses
	pos        []int32  // per-item scratch write positions for occurrence deliver
	touched    []int32  // items whose cnt is non-zero
	acc        []int32  // maximal mode: per-item scratch for merging, all zero between uses
	accTouched []int32  // items whose acc is non-zero
	itemset    []int32  // internal ids of the itemset of the current node
	out        []int32  // the itemset being emitted, in original ids

	emitted int64
	work    int   // work since the last look at ctx
	mem     int64 // bytes held in levels, approximately
	base    int64 // bytes held outside levels
	stop    string
	err     error
}

// run prepares the root conditional database and mines it.
func (m *miner) run(ds *Dataset) {
	n := ds.TotalWeight()
	if n < int64(m.minsup) {
		return // not even the empty itemset is frequent
	}
	toInternal, all := m.renumber(ds)
	m.cnt = make([]int32, len(m.orig))
	m.pos = make([]int32, len(m.orig))
	m.base = int64(len(m.orig)) * 12
	if m.o.Maximal {
		m.acc = make([]int32, len(m.orig))
		m.base += int64(len(m.orig)) * 4
	}
	m.itemset = append(m.itemset, all...)
	if len(all) > 0 {
		m.output(int32(n), len(all) == len(m.orig))
	}
	if m.stop == "" {
		m.buildRoot(ds, toInternal, all)
	}
	if m.account() {
		m.expand(0)
	}
}

// buildRoot writes the root conditional database: every transaction of ds
// with its frequent items in internal ids, less the items in all transactions.
func (m *miner) buildRoot(ds *Dataset, toInternal func(int32) int32, all []int32) {
	root := m.level(0)
	root.reset(ds.Len(), m.o.Maximal)
	skip := make([]bool, len(m.orig))
	for _, it := range all {
		skip[it] = true
	}
	for i := range ds.Len() {
		beg, w := len(root.items), ds.Weight(i)
		for _, it := range ds.Transaction(i) {
			if in := toInternal(it); in >= 0 && !skip[in] {
				root.items = append(root.items, in)
			}
		}
		slices.Sort(root.items[beg:])
		if !m.o.Maximal {
			root.pushClosed(beg, beg, w)
			continue
		}
		for range len(root.items) - beg {
			root.iw = append(root.iw, w)
		}
		root.pushCounted(beg, beg, w)
	}
	if m.o.Maximal {
		m.accTouched = root.mergeCounted(m.acc, m.accTouched)
	}
}

// renumber gives the frequent items internal ids from the least to the most
// frequent, fills m.orig, and returns the mapping from original items (-1 for an
// infrequent one) and the internal ids of the items in every transaction.
func (m *miner) renumber(ds *Dataset) (func(int32) int32, []int32) {
	ids, counts := itemCounts(ds)
	var freq []int
	for k := range ids {
		if counts[k] >= m.minsup {
			freq = append(freq, k)
		}
	}
	slices.SortFunc(freq, func(a, b int) int {
		return cmp.Or(cmp.Compare(counts[a], counts[b]), cmp.Compare(ids[a], ids[b]))
	})
	m.orig = make([]int32, len(freq))
	var all []int32
	for in, k := range freq {
		m.orig[in] = ids[k]
		if int64(counts[k]) == ds.TotalWeight() {
			all = append(all, int32(in))
		}
	}
	if dense(ds) {
		table := make([]int32, ds.MaxItem()+1)
		for i := range table {
			table[i] = -1
		}
		for in, it := range m.orig {
			table[it] = int32(in)
		}
		return func(it int32) int32 { return table[it] }, all
	}
	table := make(map[int32]int32, len(m.orig))
	for in, it := range m.orig {
		table[it] = int32(in)
	}
	return func(it int32) int32 {
		if in, ok := table[it]; ok {
			return in
		}
		return -1
	}, all
}

// dense reports whether an array indexed by item is small enough for ds.
func dense(ds *Dataset) bool {
	return int(ds.MaxItem()) < 1<<20 || int(ds.MaxItem()) < 4*ds.Size()
}

// itemCounts returns the distinct items of ds, ascending, and the number of
// transactions containing each (their summed weights).
func itemCounts(ds *Dataset) (ids, counts []int32) {
	if dense(ds) {
		c := make([]int32, ds.MaxItem()+1)
		for i := range ds.Len() {
			w := ds.Weight(i)
			for _, it := range ds.Transaction(i) {
				c[it] += w
			}
		}
		for it, n := range c {
			if n > 0 {
				ids, counts = append(ids, int32(it)), append(counts, n)
			}
		}
		return ids, counts
	}
	type occurrence struct{ item, w int32 }
	all := make([]occurrence, 0, ds.Size())
	for i := range ds.Len() {
		for _, it := range ds.Transaction(i) {
			all = append(all, occurrence{it, ds.Weight(i)})
		}
	}
	slices.SortFunc(all, func(a, b occurrence) int { return cmp.Compare(a.item, b.item) })
	for k, o := range all {
		if k == 0 || o.item != all[k-1].item {
			ids, counts = append(ids, o.item), append(counts, 0)
		}
		counts[len(counts)-1] += o.w
	}
	return ids, counts
}

// level returns the reusable level for depth d.
func (m *miner) level(d int) *level {
	for len(m.levels) <= d {
		m.levels = append(m.levels, &level{})
	}
	return m.levels[d]
}

// output emits the current itemset with its support, or records a stop.
func (m *miner) output(support int32, isMaximal bool) {
	if m.o.Maximal && !isMaximal {
		return
	}
	if m.o.MaxItemsets > 0 && m.emitted >= int64(m.o.MaxItemsets) {
		m.stop = StoppedMaxItemsets
		return
	}
	m.out = m.out[:0]
	for _, in := range m.itemset {
		m.out = append(m.out, m.orig[in])
	}
	slices.Sort(m.out)
	m.emitted++
	if err := m.emit(m.out, int(support)); err != nil {
		m.err = err
		m.stop = "emit: " + err.Error()
	}
}

// halted reports whether mining must end, looking at ctx (and reporting
// progress) once per chunk of work.
func (m *miner) halted(work int) bool {
	if m.stop != "" {
		return true
	}
	m.work += work + 64
	if m.work < 1<<18 {
		return false
	}
	m.work = 0
	if m.o.Progress != nil {
		m.o.Progress(m.emitted)
	}
	if err := m.ctx.Err(); err != nil {
		m.stop = err.Error()
		return true
	}
	return false
}

// account recomputes the memory held and reports whether mining may go on.
func (m *miner) account() bool {
	m.mem = m.base
	for _, l := range m.levels {
		m.mem += l.bytes()
	}
	if m.o.MaxMemory > 0 && m.mem > m.o.MaxMemory {
		if m.stop == "" {
			m.stop = StoppedMemory
		}
		return false
	}
	return m.stop == ""
}
