package stream

import "github.com/dedupstream/dedupstream/state"

// overlay indexes the documents decided in the current batch, which are not in
// state until the batch's output is acknowledged. Its documents all have larger
// sequence numbers than anything stored, so they are consulted after state.
type overlay struct {
	docs   []state.Doc
	byKey  map[replayKey]int
	byHash map[uint64]int
	byBand map[bandKey][]int
}

type replayKey struct {
	source string
	hash   uint64
}

type bandKey struct {
	band int
	key  uint64
}

func newOverlay() *overlay {
	return &overlay{
		byKey:  make(map[replayKey]int),
		byHash: make(map[uint64]int),
		byBand: make(map[bandKey][]int),
	}
}

func (o *overlay) add(doc state.Doc) {
	i := len(o.docs)
	o.docs = append(o.docs, doc)
	o.byKey[replayKey{doc.Source, doc.ContentHash}] = i
	if _, ok := o.byHash[doc.ContentHash]; !ok {
		o.byHash[doc.ContentHash] = i
	}
	for b, k := range doc.Bands {
		bk := bandKey{b, k}
		o.byBand[bk] = append(o.byBand[bk], i)
	}
}

func (o *overlay) replayed(source string, hash uint64) (state.Doc, bool) {
	i, ok := o.byKey[replayKey{source, hash}]
	if !ok {
		return state.Doc{}, false
	}
	return o.docs[i], true
}

func (o *overlay) exact(hash uint64) (state.Doc, bool) {
	i, ok := o.byHash[hash]
	if !ok {
		return state.Doc{}, false
	}
	return o.docs[i], true
}

// candidates appends the batch's documents sharing a band with bands, in
// sequence order, without repeats.
func (o *overlay) candidates(dst []state.Doc, bands []uint64) []state.Doc {
	if len(o.docs) == 0 {
		return dst
	}
	var seen []int
	for b, k := range bands {
		for _, i := range o.byBand[bandKey{b, k}] {
			seen = insertSorted(seen, i)
		}
	}
	for _, i := range seen {
		dst = append(dst, o.docs[i])
	}
	return dst
}

// insertSorted inserts v into the ascending slice s unless present.
func insertSorted(s []int, v int) []int {
	j := len(s)
	for j > 0 && s[j-1] > v {
		j--
	}
	if j > 0 && s[j-1] == v {
		return s
	}
	s = append(s, 0)
	copy(s[j+1:], s[j:])
	s[j] = v
	return s
}
