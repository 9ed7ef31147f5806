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

// maxVarintSeq bounds the seqs formats 2 to 4 wrote as a uvarint in a seq
// value, which then takes at most 7 bytes and so cannot be mistaken for
// the 8-byte form.
const maxVarintSeq = 1<<49 - 1

// appendSeqValue appends the seq value formats 2 to 4 wrote under a replay
// key: a uvarint, or big-endian in 8 bytes above maxVarintSeq.
func appendSeqValue(dst []byte, seq uint64) []byte {
	if seq > maxVarintSeq {
		return binary.BigEndian.AppendUint64(dst, seq)
	}
	return binary.AppendUvarint(dst, seq)
}
