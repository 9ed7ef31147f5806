package state

import "encoding/binary"

// appendPublishedKey appends the key of a document's published marker of
// format 3, which this build reads but no longer writes.
func appendPublishedKey(dst []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixPublished), seq)
}

// Format 2's posting keys, which this build reads (indexLegacy) but no longer
// writes: tests build states of that format with them.

// appendHashPrefix appends the prefix of a content hash's postings after its head.
func appendHashPrefix(dst []byte, hash uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixHash), hash)
}

func appendHashKey(dst []byte, hash, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(appendHashPrefix(dst, hash), seq)
}

// appendBucket appends the prefix of a band bucket's postings after its head.
func appendBucket(dst []byte, band int, key uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixPosting, byte(band)), key)
}

func appendPostingKey(dst []byte, band int, key, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(appendBucket(dst, band, key), seq)
}
