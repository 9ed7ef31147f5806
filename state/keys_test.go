package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
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
		// The 8-byte form of format 1 states.
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
// groups), and heads and replay keys holding 8-byte seqs, as format 1
// states do. Open loads those postings into the index and raises
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
			txn.Delete(appendMarkerKey(nil, 0)), // the one Put's
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
	s = reopenUpgraded(t, s, dir, 2)
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

// TestMarkerRoundTrip: a marker lists each document's replay posting and
// published postings as they were queued, and every value cut short of an
// entry's end is refused.
func TestMarkerRoundTrip(t *testing.T) {
	ps := []posting{
		{key: 7, seq: 3, replay: true}, {key: 1, seq: 3}, {key: 2, seq: 3}, {key: math.MaxUint64, seq: 3}, // Put
		{key: 9, seq: 1 << 40},                                         // Publish
		{key: 8, seq: 5, replay: true}, {key: 0, seq: 6, replay: true}, // Stage
		{key: 4, seq: 5}, {key: 5, seq: 5},
	}
	v := appendMarker(nil, ps)
	var got []posting
	docs, ok := eachMarked(v, nil, func(doc []posting) { got = append(got, doc...) })
	if !ok || docs != 3 || !slices.Equal(got, ps) {
		t.Fatalf("eachMarked = %d documents, %v (%v); want 3, %v", docs, got, ok, ps)
	}
	ends := map[int]bool{} // where each entry ends
	for _, n := range []int{1, 4, 5, 6, 7} {
		ends[len(appendMarker(nil, ps[:n]))] = true
	}
	for n := 1; n < len(v); n++ {
		if _, ok := eachMarked(v[:n], nil, func([]posting) {}); ok != ends[n] {
			t.Errorf("a marker cut to %d of its %d bytes: read %v, want %v", n, len(v), ok, ends[n])
		}
	}
}

// TestFormat3Markers opens a state of format 3, whose published markers list
// one document's index keys each: Open loads them and raises the format, the
// documents are found, and so are documents published after, across a
// reopen.
func TestFormat3Markers(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	d1, d2 := doc(1, 10, 20), doc(2, 10)
	put(t, s, d1, d2)
	perDoc := func(d Doc) []byte {
		v := binary.BigEndian.AppendUint64(nil, groupKey(d.ContentHash))
		for i, key := range d.Bands {
			v = binary.BigEndian.AppendUint64(v, bucketKey(s.keyBand(i), key))
		}
		return v
	}
	err := s.db.Update(func(txn *badger.Txn) error {
		return errors.Join(
			txn.Set(metaKey(metaFormat), binary.BigEndian.AppendUint64(nil, 3)),
			txn.Delete(appendMarkerKey(nil, 0)),
			txn.Set(appendPublishedKey(nil, 1), perDoc(d1)),
			txn.Set(appendPublishedKey(nil, 2), perDoc(d2)),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	s = reopenUpgraded(t, s, dir, 3)
	wantCandidates(t, s, []uint64{10}, 9, 1, 2)
	if d, ok, err := s.Exact(d2.ContentHash, 9); err != nil || !ok || d.Seq != 2 {
		t.Errorf("Exact doc 2 = %d, %v, %v", d.Seq, ok, err)
	}
	put(t, s, doc(3, 10))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	wantCandidates(t, s, []uint64{10}, 9, 1, 2, 3)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMarkersAcrossReopens: each write's published marker gets a number of
// its own, after a reopen too, so that none overwrites another: every
// document is found after the last reopen, in a state written across several.
func TestMarkersAcrossReopens(t *testing.T) {
	dir := t.TempDir()
	want := []uint64{}
	for seq := uint64(1); seq <= 4; seq++ {
		s := openDisk(t, dir, Options{})
		put(t, s, doc(seq, 10))
		want = append(want, seq)
		wantCandidates(t, s, []uint64{10}, 9, want...)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s := openDisk(t, dir, Options{})
	wantCandidates(t, s, []uint64{10}, 9, want...)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// wantCandidates fails unless the band-0 keys find exactly the documents of
// seqs, in order, below before.
func wantCandidates(t *testing.T, s *Store, keys []uint64, before uint64, seqs ...uint64) {
	t.Helper()
	got, _, err := s.Candidates(nil, keys, before)
	if err != nil || !slices.Equal(seqsOf(got), seqs) {
		t.Errorf("Candidates(%v) = %v, %v; want %v", keys, seqsOf(got), err, seqs)
	}
}

// FuzzMarker: eachMarked reads any bytes without panicking, and what it reads
// from a well-formed marker, written again, reads back the same.
func FuzzMarker(f *testing.F) {
	f.Add(appendMarker(nil, []posting{{key: 1, seq: 3}, {key: 2, seq: 3}, {key: 9, seq: 1 << 40}, {key: 4, seq: 2, replay: true}}))
	f.Add([]byte{1, 0})
	f.Add([]byte{0x80, 0x00, 1, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, v []byte) {
		var got []posting
		if _, ok := eachMarked(v, nil, func(ps []posting) { got = append(got, ps...) }); !ok {
			return
		}
		var again []posting
		if _, ok := eachMarked(appendMarker(nil, got), nil, func(ps []posting) { again = append(again, ps...) }); !ok || !slices.Equal(again, got) {
			t.Fatalf("read %v, written again read %v (%v)", got, again, ok)
		}
	})
}

// TestIndexLoadsAlikeEitherWay: the postings index Open builds is the same
// whether it reads the keys on one iterator (a small store) or on Badger's
// Stream (a large one), for markers of the current format and of format 3.
func TestIndexLoadsAlikeEitherWay(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	var docs []Doc
	for seq := uint64(1); seq <= 400; seq++ {
		docs = append(docs, doc(seq, seq%37, 1000+seq%11))
		if seq%50 == 0 { // a marker a write
			put(t, s, docs...)
			docs = docs[:0]
		}
	}
	err := s.db.Update(func(txn *badger.Txn) error { // two documents as format 3 wrote them
		v := binary.BigEndian.AppendUint64(nil, groupKey(5000))
		v = binary.BigEndian.AppendUint64(v, bucketKey(s.keyBand(0), 36))
		return errors.Join(txn.Set(appendPublishedKey(nil, 401), v), txn.Set(appendPublishedKey(nil, 402), v))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // flushes the memtable into tables
		t.Fatal(err)
	}
	load := func(keys int) (int, [][]uint64, []uint64) {
		defer func(k int) { streamKeys = k }(streamKeys)
		streamKeys = keys
		s := openDisk(t, dir, Options{})
		defer s.Close()
		var found [][]uint64
		for key := uint64(0); key < 37; key++ {
			got, _, err := s.Candidates(nil, []uint64{key}, 1000)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, seqsOf(got))
		}
		legacy, _ := s.index.Lookup(nil, bucketKey(s.keyBand(0), 36), 400, 1000, 10)
		return s.index.Len(), found, legacy
	}
	n1, found1, legacy1 := load(math.MaxInt) // one iterator
	n2, found2, legacy2 := load(0)           // Stream
	if n1 != n2 || !reflect.DeepEqual(found1, found2) || n1 == 0 {
		t.Errorf("one iterator: %d postings; Stream: %d; candidates alike: %v", n1, n2, reflect.DeepEqual(found1, found2))
	}
	for _, got := range [][]uint64{legacy1, legacy2} {
		if !slices.Contains(got, 401) || !slices.Contains(got, 402) {
			t.Errorf("band key 36 lists %v from seq 400, want 401 and 402 (format-3 markers)", got)
		}
	}
}
