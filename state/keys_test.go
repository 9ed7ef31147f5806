package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

func TestReplayKeysUnambiguous(t *testing.T) {
	type pair struct {
		id   string
		hash uint64
	}
	pairs := []pair{
		{"", 0}, {"a", 0}, {"a\x00", 0}, {"a\x00\x00\x00\x00\x00\x00\x00\x00", 0},
		{"a", 0x0100000000000000}, {"\x01a", 0}, {"\x01", 0x6100000000000000},
	}
	seen := map[string]pair{}
	for _, p := range pairs {
		k := string(appendReplayKey(nil, p.id, p.hash))
		if len(k) != replayKeyLen(p.id) {
			t.Errorf("replayKeyLen(%q) = %d, key has %d bytes", p.id, replayKeyLen(p.id), len(k))
		}
		if q, dup := seen[k]; dup {
			t.Errorf("%+v and %+v share key %x", p, q, k)
		}
		seen[k] = p
	}
}

func TestPostingKeysOrderBySeq(t *testing.T) {
	a := appendPostingKey(nil, 3, 99, 255)
	b := appendPostingKey(nil, 3, 99, 256)
	bucket := appendBucket(nil, 3, 99)
	if bytes.Compare(a, b) >= 0 || !bytes.HasPrefix(a, bucket) || seqSuffix(b) != 256 || len(a) != postingKeyLen {
		t.Errorf("posting keys %x, %x under bucket %x", a, b, bucket)
	}
	if h := appendHashKey(nil, 5, 9); len(h) != hashKeyLen || seqSuffix(h) != 9 {
		t.Errorf("hash key %x", h)
	}
}

func TestSeqValues(t *testing.T) {
	for _, seq := range []uint64{1, 127, 128, 2_097_151, 2_097_152, maxVarintSeq, maxVarintSeq + 1, math.MaxUint64} {
		v := appendSeqValue(nil, seq)
		if got, ok := decodeSeqValue(v); !ok || got != seq {
			t.Errorf("seq %d: value %x decodes to %d, %v", seq, v, got, ok)
		}
		if seq <= maxVarintSeq && len(v) >= 8 || seq > maxVarintSeq && len(v) != 8 {
			t.Errorf("seq %d: %d-byte value", seq, len(v))
		}
		// The 8-byte form of states written before issue 11.
		if got, ok := decodeSeqValue(binary.BigEndian.AppendUint64(nil, seq)); !ok || got != seq {
			t.Errorf("seq %d: 8-byte value decodes to %d, %v", seq, got, ok)
		}
	}
	if n := len(appendSeqValue(nil, 1_000_000)); n != 3 {
		t.Errorf("seq 1,000,000 takes %d bytes, want 3", n)
	}
	for _, v := range [][]byte{nil, {0x80}, {0x01, 0x02}, {1, 2, 3, 4, 5, 6, 7, 8, 9},
		{0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x01}} { // a 9-byte uvarint
		if seq, ok := decodeSeqValue(v); ok {
			t.Errorf("value %x decodes to %d, want an error", v, seq)
		}
	}
}

// TestEightByteSeqValues opens a state of format 2, as builds before the
// in-memory index wrote it: postings as keys (heads and the rest of their
// groups), and heads and replay keys holding 8-byte seqs, as states written
// before issue 11 do. Open loads those postings into the index and raises
// the format marker; lookups find the documents through them, and new
// documents join their groups.
func TestEightByteSeqValues(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	d1, d2 := doc(1, 10, 20), doc(2, 30)
	put(t, s, d1, d2)
	eight := func(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }
	err := s.db.Update(func(txn *badger.Txn) error {
		return errors.Join(
			txn.Set(metaKey(metaFormat), eight(2)),
			txn.Delete(appendPublishedKey(nil, 1)),
			txn.Delete(appendPublishedKey(nil, 2)),
			txn.Set(appendReplayKey(nil, d1.ID, d1.ContentHash), eight(1)),
			txn.Set(appendReplayKey(nil, d2.ID, d2.ContentHash), eight(2)),
			txn.Set(appendHashHead(nil, d1.ContentHash), eight(1)),
			// doc 2's hash group: a head whose record is gone, and doc 2
			txn.Set(appendHashHead(nil, d2.ContentHash), eight(900)),
			txn.Set(appendHashKey(nil, d2.ContentHash, 2), nil),
			txn.Set(appendBucketHead(nil, 0, 10), eight(1)),
			txn.Set(appendBucketHead(nil, 1, 20), eight(1)),
			txn.Set(appendBucketHead(nil, 0, 30), eight(2)),
			// a group whose head's record is gone: its other posting is found
			txn.Set(appendBucketHead(nil, 1, 77), eight(900)),
			txn.Set(appendPostingKey(nil, 1, 77, 2), nil),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if format := storedFormat(t, s); format != formatVersion {
		t.Fatalf("format after opening a format-2 state: %d, want %d", format, formatVersion)
	}
	d3 := doc(3, 10, 99)
	d3.ContentHash = d2.ContentHash
	put(t, s, d3)
	if d, ok, err := s.Replayed(d1.ID, d1.ContentHash); err != nil || !ok || d.Seq != 1 {
		t.Errorf("Replayed doc 1 = %d, %v, %v", d.Seq, ok, err)
	}
	if d, ok, err := s.Exact(d3.ContentHash, 4); err != nil || !ok || d.Seq != 2 {
		t.Errorf("Exact(doc 2's hash) = %d, %v, %v; want doc 2 from its format-2 posting", d.Seq, ok, err)
	}
	got, _, err := s.Candidates(nil, []uint64{10, 20}, 4)
	if err != nil || !slices.Equal(seqsOf(got), []uint64{1, 3}) {
		t.Errorf("Candidates of band 0 key 10 = %v, %v; want docs 1 and 3", seqsOf(got), err)
	}
	if got, _ := candidates(t, s, []uint64{0, 77}, 4); !slices.Equal(got, []uint64{2}) {
		t.Errorf("Candidates of band 1 key 77 = %v, want doc 2 (its head's record is gone)", got)
	}
}
