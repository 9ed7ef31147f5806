package shard

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"

	"github.com/dedupstream/dedupstream/state"
)

// exactKey is the index key of a content hash. Every exact copy of a document
// has it, so a shard finds them even for a document with no other key (a
// short page under mod-m); it is a hash of the content hash with a tag, so it
// never equals a band key.
func exactKey(hash uint64) uint64 {
	var b [13]byte
	copy(b[:5], "exact")
	binary.BigEndian.PutUint64(b[5:], hash)
	return xxhash.Sum64(b[:])
}

// shardOf is the shard that owns an index key. Keys are hashes, so their
// residues spread evenly.
func shardOf(key uint64, shards int) int { return int(key % uint64(shards)) }

// home is the one shard that stores a document — its record, sketch and
// postings: the shard of its exact key, so every exact copy of a document has
// its original's home. The index is partitioned by document, not by key:
// every shard looks every document up among the documents it stores, and
// only the home stores it.
func home(contentHash uint64, shards int) int { return shardOf(exactKey(contentHash), shards) }

// indexKeys are the keys a shard looks a document up by and its home stores
// it under: its band keys and its exact key, appended to d.Bands (in its
// spare capacity, which decodeProbe leaves for it).
func indexKeys(d *state.Doc) []uint64 {
	return append(d.Bands, exactKey(d.ContentHash))
}
