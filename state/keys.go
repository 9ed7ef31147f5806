package state

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// Key prefixes; see the package documentation for the layout.
const (
	prefixMeta   = 'm'
	prefixDoc    = 'd'
	prefixMarker = 'P'
	// Formats 1 to 4 kept a replay key for each document; they are still
	// read (loadIndex), never written.
	prefixReplay = 'i'
	// Format 3 kept a published marker for each document; they are still
	// read (loadIndex), never written.
	prefixPublished = 'p'
	// Format 1 and 2 kept each posting as a key of its own; they are still
	// read (loadIndex), never written.
	prefixHashHead   = 'H'
	prefixHash       = 'h'
	prefixBucketHead = 'B'
	prefixPosting    = 'b'
)

// Metadata names under prefixMeta.
const (
	metaFormat = "format"
	metaSketch = "sketch"
	metaSeq    = "seq"
	metaDocs   = "docs"
	// metaApplied is the offset of the last log record a shard of the
	// sharded index applied (Apply), plus one; absent before the first.
	metaApplied = "applied"
)

// MaxBands is the number of band indexes a posting key can hold (one byte).
const MaxBands = 256

// SetBand is the band index under which a store with Options.SetKeys keeps
// every key: a set key has no band of its own.
const SetBand = MaxBands - 1

// Fixed key lengths.
const (
	docKeyLen       = 1 + 8
	markerKeyLen    = 1 + 8
	publishedKeyLen = 1 + 8
	hashHeadLen     = 1 + 8
	hashKeyLen      = hashHeadLen + 8
	bucketLen       = 1 + 1 + 8 // prefix, band, band key
	postingKeyLen   = bucketLen + 8
)

func metaKey(name string) []byte {
	return append([]byte{prefixMeta}, name...)
}

func appendDocKey(dst []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixDoc), seq)
}

// replayKey is what Replayed looks a document up by: its Source, else its ID.
func (d *Doc) replayKey() string {
	if d.Source != "" {
		return d.Source
	}
	return d.ID
}

// appendReplayKey appends 'i' uvarint(len(rk)) rk hash, the replay key
// formats 1 to 4 stored. The length prefix makes the key unambiguous
// whatever bytes rk holds.
func appendReplayKey(dst []byte, rk string, hash uint64) []byte {
	dst = binary.AppendUvarint(append(dst, prefixReplay), uint64(len(rk)))
	return binary.BigEndian.AppendUint64(append(dst, rk...), hash)
}

// replayIndexKey is the replay index's key of a replay key and content
// hash: the hash of the key formats 1 to 4 stored, so that their keys and
// new postings meet under the same index key.
func replayIndexKey(rk string, hash uint64) uint64 {
	var kb [64]byte // a topic/partition/offset source fits: no allocation
	return keyHash(appendReplayKey(kb[:0], rk, hash))
}

func keyHash(key []byte) uint64 { return xxhash.Sum64(key) }

// appendMarkerKey appends the key of the marker numbered n.
func appendMarkerKey(dst []byte, n uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixMarker), n)
}

// groupKey is the in-memory index key of a content hash's group: the hash of
// the key format 2 stored the group's head under, so that the postings of an
// older state and new ones meet in the same group.
func groupKey(hash uint64) uint64 {
	var kb [hashHeadLen]byte
	return keyHash(appendHashHead(kb[:0], hash))
}

// bucketKey is the in-memory index key of a band bucket, likewise the hash of
// format 2's head key.
func bucketKey(band int, key uint64) uint64 {
	var kb [bucketLen]byte
	return keyHash(appendBucketHead(kb[:0], band, key))
}

// appendHashHead appends format 2's key of a content hash's smallest seq.
func appendHashHead(dst []byte, hash uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixHashHead), hash)
}

// appendBucketHead appends format 2's key of a band bucket's smallest seq.
func appendBucketHead(dst []byte, band int, key uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixBucketHead, byte(band)), key)
}

// seqSuffix returns the sequence number in the last 8 bytes of a posting key.
func seqSuffix(key []byte) uint64 {
	return binary.BigEndian.Uint64(key[len(key)-8:])
}

// decodeSeqValue decodes the seq value of a replay key or a format-2 group
// head: a uvarint of at most 7 bytes (3 up to 2,097,151), or big-endian in 8
// bytes (format 1 throughout, later formats from 2^49 on); false if v is
// neither form.
func decodeSeqValue(v []byte) (uint64, bool) {
	if len(v) == 8 {
		return binary.BigEndian.Uint64(v), true
	}
	if len(v) > 7 {
		return 0, false
	}
	seq, n := binary.Uvarint(v)
	return seq, n > 0 && n == len(v)
}

func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// A marker lists the postings of the documents a transaction wrote,
// document by document: its published postings as uvarint seq, uvarint
// count, then count index keys of 8 bytes each; its replay posting (a
// Stage) as uvarint seq, a 0 count, then the 8-byte replay index key.
// Markers of format 4 hold no replay postings, and their counts are never 0.

// markerDocLen is the most bytes a document of keys index keys takes in a
// marker; markerReplayLen those of a replay posting.
func markerDocLen(keys int) int {
	return binary.MaxVarintLen64 + binary.MaxVarintLen32 + 8*keys
}

// markerReplayLen: a seq, the 0 count, the key.
const markerReplayLen = binary.MaxVarintLen64 + 1 + 8

// appendMarker appends the marker of ps, whose published postings of one
// document are next to each other.
func appendMarker(dst []byte, ps []posting) []byte {
	for i := 0; i < len(ps); {
		dst = binary.AppendUvarint(dst, ps[i].seq)
		if ps[i].replay {
			dst = binary.BigEndian.AppendUint64(append(dst, 0), ps[i].key)
			i++
			continue
		}
		j := i + 1
		for j < len(ps) && ps[j].seq == ps[i].seq && !ps[j].replay {
			j++
		}
		dst = binary.AppendUvarint(dst, uint64(j-i))
		for _, p := range ps[i:j] {
			dst = binary.BigEndian.AppendUint64(dst, p.key)
		}
		i = j
	}
	return dst
}

// eachMarked calls fn with each document's published postings that marker
// v lists and with each replay posting (in a slice of one), in the order
// they are listed (ps is reused from one call to the next), and returns how
// many documents' published postings it listed; false if v is not a marker.
func eachMarked(v []byte, ps []posting, fn func([]posting)) (docs int, ok bool) {
	for len(v) > 0 {
		seq, n := binary.Uvarint(v)
		if n <= 0 {
			return docs, false
		}
		count, m := binary.Uvarint(v[n:])
		if m <= 0 || count > uint64(len(v)-n-m)/8 {
			return docs, false
		}
		v = v[n+m:]
		ps = ps[:0]
		if count == 0 { // a replay posting
			if len(v) < 8 {
				return docs, false
			}
			fn(append(ps, posting{key: binary.BigEndian.Uint64(v), seq: seq, replay: true}))
			v = v[8:]
			continue
		}
		for range count {
			ps = append(ps, posting{key: binary.BigEndian.Uint64(v), seq: seq})
			v = v[8:]
		}
		fn(ps)
		docs++
	}
	return docs, true
}
