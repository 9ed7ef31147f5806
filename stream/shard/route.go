package shard

import (
	"encoding/binary"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/dedupstream/dedupstream/state"
)

// exactKey is the index key of a content hash. Every exact copy of a document
// has it, so the shard that owns it finds them even for a document with no
// other key (a short page under mod-m); it is a hash of the content hash
// with a tag, so it never equals a band key.
func exactKey(hash uint64) uint64 {
	var b [13]byte
	copy(b[:5], "exact")
	binary.BigEndian.PutUint64(b[5:], hash)
	return xxhash.Sum64(b[:])
}

// shardOf is the shard that owns an index key. Keys are hashes, so their
// residues spread evenly.
func shardOf(key uint64, shards int) int { return int(key % uint64(shards)) }

// routed is the part of a document one shard is asked about.
type routed struct {
	shard int
	keys  []uint64
}

// route splits a document's index keys (Bands, plus its exact key) by shard,
// in shard order. Every key goes to exactly one shard.
func route(d *state.Doc, shards int) []routed {
	keys := append(slices.Clip(d.Bands), exactKey(d.ContentHash))
	var out []routed
	for _, k := range keys {
		s := shardOf(k, shards)
		i, found := slices.BinarySearchFunc(out, s, func(r routed, s int) int { return r.shard - s })
		if !found {
			out = slices.Insert(out, i, routed{shard: s})
		}
		out[i].keys = append(out[i].keys, k)
	}
	return out
}
