package stream

import (
	"slices"

	"github.com/dedupstream/dedupstream/state"
)

// overlay indexes the documents decided in the current batch, which are not in
// state until the batch's output is acknowledged. Its documents all have larger
// sequence numbers than anything stored, so they are consulted after state.
type overlay struct {
	docs   []state.Doc
	byKey  map[replayKey]int
	byHash map[uint64]int
	// The documents of each index key are a chain through keyDocs, newest
	// first: keyHead holds the key's last entry + 1, and each entry the one
	// before + 1 (0 ends the chain). One map entry and one slot a key, where
	// a slice a key cost an allocation each (3.6 a document in a 200k profile).
	keyHead map[uint64]int32
	keyDocs []keyDoc
}

// keyDoc is an entry of an index key's chain: a document and the entry
// before it (+1; 0: none).
type keyDoc struct{ doc, prev int32 }

type replayKey struct {
	source string
	hash   uint64
}

// newOverlay returns an overlay sized for the docs that here names (all of
// them for a nil here; they are added one by one as they are decided), so
// that its maps never grow while a batch is decided. A shard of an index
// partitioned by document adds only the documents it stores, a few of the
// batch's: maps sized for all of them would be mostly zeroed memory.
func newOverlay(docs []state.Doc, here []bool) *overlay {
	n, keys := 0, 0
	for i := range docs {
		if here == nil || here[i] {
			n, keys = n+1, keys+len(docs[i].Bands)
		}
	}
	return &overlay{
		docs:    make([]state.Doc, 0, n),
		byKey:   make(map[replayKey]int, n),
		byHash:  make(map[uint64]int, n),
		keyHead: make(map[uint64]int32, keys),
		keyDocs: make([]keyDoc, 0, keys),
	}
}

func (o *overlay) add(doc state.Doc) {
	i := len(o.docs)
	o.docs = append(o.docs, doc)
	o.byKey[replayKey{doc.Source, doc.ContentHash}] = i
	if _, ok := o.byHash[doc.ContentHash]; !ok {
		o.byHash[doc.ContentHash] = i
	}
	for _, k := range doc.Bands {
		head := o.keyHead[k]
		if head != 0 && o.keyDocs[head-1].doc == int32(i) {
			continue // the key twice in one document
		}
		o.keyDocs = append(o.keyDocs, keyDoc{doc: int32(i), prev: head})
		o.keyHead[k] = int32(len(o.keyDocs))
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

// candidates appends the batch's documents sharing an index key with keys, in
// sequence order, without repeats. Keys are matched as a set, ignoring their
// band: every Method mixes the band into its keys (see lsh.Method.KeyBands),
// so this is right for banded and set keys alike.
func (o *overlay) candidates(dst []state.Doc, keys []uint64) []state.Doc {
	if len(o.docs) == 0 {
		return dst
	}
	var seen []int
	for _, k := range keys {
		for e := o.keyHead[k]; e != 0; e = o.keyDocs[e-1].prev {
			seen = append(seen, int(o.keyDocs[e-1].doc))
		}
	}
	slices.Sort(seen) // the chains run newest first
	seen = slices.Compact(seen)
	for _, i := range seen {
		dst = append(dst, o.docs[i])
	}
	return dst
}
