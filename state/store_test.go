package state

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func TestRoundTrip(t *testing.T) {
	sketch := make([]byte, 512)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(sketch)
	moscow := time.FixedZone("MSK", 3*3600)
	docs := []Doc{
		{Seq: 1, ID: "https://example.org/a", URL: "https://example.org/a?utm=1", Time: time.Date(2024, 5, 1, 12, 30, 0, 123456789, time.UTC),
			ContentHash: 0xdeadbeef, Verdict: 1, Cluster: 1, Sketch: sketch, Bands: []uint64{11, 12, 13}},
		{Seq: 2, ID: "Ёлка/новости/日本語", Source: "pages/3/1234", Time: time.Date(2024, 5, 1, 15, 0, 0, 0, moscow),
			ContentHash: 0xdeadbeef, Verdict: 3, Of: 1, OfID: "https://example.org/a", Similarity: 0.873, Cluster: 1,
			Sketch: []byte{1, 2, 3}, Bands: []uint64{11, 99, 98}},
		{Seq: 3, ID: "a\x00b", URL: "", ContentHash: 7, Verdict: 2, Of: 2, OfID: "x\x00\xff", Similarity: 1, Cluster: 1 << 63},
		{Seq: 4, ID: "a", ContentHash: 0, Verdict: 255, Bands: []uint64{0, ^uint64(0)}},
		{Seq: 5, ID: "a\x00", Source: "a", ContentHash: 7, Verdict: 1, Of: ^uint64(0)},
	}
	modes(t, Options{}, func(t *testing.T, s *Store) {
		for i := range docs {
			if seq := s.Reserve(); seq != docs[i].Seq {
				t.Fatalf("Reserve = %d, want %d", seq, docs[i].Seq)
			}
		}
		put(t, s, docs...)
		for _, want := range docs {
			got, ok, err := s.Get(want.Seq)
			if err != nil || !ok {
				t.Fatalf("Get(%d) = %v, %v", want.Seq, ok, err)
			}
			sameDoc(t, got, want)
			got, ok, err = s.Replayed(want.replayKey(), want.ContentHash)
			if err != nil || !ok {
				t.Fatalf("Replayed(%q, %x) = %v, %v", want.replayKey(), want.ContentHash, ok, err)
			}
			sameDoc(t, got, want)
			got, ok, err = s.Exact(want.ContentHash, want.Seq+1)
			if err != nil || !ok || got.ContentHash != want.ContentHash || got.Seq > want.Seq {
				t.Fatalf("Exact(%x, %d) = %+v, %v, %v", want.ContentHash, want.Seq+1, got, ok, err)
			}
		}
		// Replay keys are exact: neither a prefix of an id nor a differing hash matches.
		for _, q := range []struct {
			key  string
			hash uint64
		}{{"a\x00b", 8}, {"a\x00", 0}, {"", 7}, {"Ёлка/новости/日本語", 0xdeadbeef}, {"pages/3/1234", 0xdeadbef0}} {
			if d, ok, err := s.Replayed(q.key, q.hash); ok || err != nil {
				t.Errorf("Replayed(%q, %x) = seq %d, %v, %v; want none", q.key, q.hash, d.Seq, ok, err)
			}
		}
		got, _, err := s.Candidates(nil, []uint64{11, 99, 0}, 10)
		if err != nil || !slices.Equal(seqsOf(got), []uint64{1, 2}) {
			t.Fatalf("Candidates = %v, %v; want [1 2]", seqsOf(got), err)
		}
		sameDoc(t, got[0], docs[0])
		sameDoc(t, got[1], docs[1])
	})
}

func TestNeverSeqAtOrAfterBefore(t *testing.T) {
	modes(t, Options{}, func(t *testing.T, s *Store) {
		for seq := uint64(1); seq <= 5; seq++ {
			d := doc(seq, 100+seq, 42) // band 1 shared by all
			d.ContentHash = 77
			put(t, s, d)
		}
		for _, c := range []struct {
			before uint64
			want   []uint64
		}{{0, nil}, {1, nil}, {2, []uint64{1}}, {3, []uint64{1, 2}}, {6, []uint64{1, 2, 3, 4, 5}}, {100, []uint64{1, 2, 3, 4, 5}}} {
			got, _ := candidates(t, s, []uint64{999, 42}, c.before)
			if !slices.Equal(got, c.want) {
				t.Errorf("Candidates(before=%d) = %v, want %v", c.before, got, c.want)
			}
			d, ok, err := s.Exact(77, c.before)
			if err != nil || ok != (len(c.want) > 0) || (ok && d.Seq != 1) {
				t.Errorf("Exact(before=%d) = seq %d, %v, %v", c.before, d.Seq, ok, err)
			}
		}
		// A document never matches itself: its own seq is the before of its lookup.
		if got, _ := candidates(t, s, []uint64{103}, 3); len(got) != 0 {
			t.Errorf("Candidates of doc 3 before 3 = %v, want none", got)
		}
	})
}

func TestMaxBucketDeterministic(t *testing.T) {
	modes(t, Options{MaxBucket: 2}, func(t *testing.T, s *Store) {
		for seq := uint64(1); seq <= 10; seq++ {
			put(t, s, doc(seq, 7))
		}
		check := func(before uint64, want []uint64, wantCut int) {
			t.Helper()
			got, capped := candidates(t, s, []uint64{7}, before)
			if !slices.Equal(got, want) || capped.Buckets != wantCut || capped.Candidates {
				t.Errorf("before %d: %v %+v, want %v with %d buckets cut", before, got, capped, want, wantCut)
			}
		}
		check(11, []uint64{1, 2}, 1)
		check(3, []uint64{1, 2}, 0) // exactly MaxBucket postings below before: not cut
		check(2, []uint64{1}, 0)
		for seq := uint64(11); seq <= 30; seq++ {
			put(t, s, doc(seq, 7))
		}
		check(11, []uint64{1, 2}, 1)
		check(31, []uint64{1, 2}, 1)
	})
}

func TestMaxCandidatesAndDistinct(t *testing.T) {
	modes(t, Options{MaxCandidates: 3}, func(t *testing.T, s *Store) {
		// Doc seq matches the query on bands 0..seq-1, so late docs match many
		// bands; the cap keeps those that match most.
		query := []uint64{1, 2, 3, 4, 5}
		for seq := uint64(1); seq <= 5; seq++ {
			d := doc(seq)
			for b := range 5 {
				d.Bands = append(d.Bands, 1000*seq+uint64(b))
			}
			for b := range seq {
				d.Bands[b] = query[b]
			}
			put(t, s, d)
		}
		got, capped := candidates(t, s, query, 100)
		if !slices.Equal(got, []uint64{3, 4, 5}) || !capped.Candidates || capped.Buckets != 0 {
			t.Errorf("got %v %+v, want [3 4 5] cut by MaxCandidates", got, capped)
		}
		got, capped = candidates(t, s, query, 4)
		if !slices.Equal(got, []uint64{1, 2, 3}) || capped.Candidates {
			t.Errorf("before 4: got %v %+v, want [1 2 3] not cut", got, capped)
		}
		got, _ = candidates(t, s, query[2:], 100) // bands 0,1 unknown; 3..5 match bands 2..4
		if !slices.Equal(got, nil) {
			t.Errorf("shifted query matched %v: band index must be part of the key", got)
		}
	})
}

func TestCandidatesAppendsToDst(t *testing.T) {
	s := openMem(t, Options{})
	put(t, s, doc(1, 5), doc(2, 5))
	dst := []Doc{{Seq: 99}}
	got, _, err := s.Candidates(dst, []uint64{5}, 10)
	if err != nil || !slices.Equal(seqsOf(got), []uint64{99, 1, 2}) {
		t.Fatalf("Candidates = %v, %v; want [99 1 2]", seqsOf(got), err)
	}
	if _, _, err := s.Candidates(nil, make([]uint64, MaxBands+1), 10); err == nil {
		t.Errorf("Candidates with %d bands: no error", MaxBands+1)
	}
}

// A posting whose record is gone (expired, and not yet swept from the
// index) must not hide the rest of its group.
func TestPostingsWithoutRecordAreSkipped(t *testing.T) {
	s := openMem(t, Options{})
	d1, d2 := doc(1, 5), doc(2, 5)
	d2.ContentHash = d1.ContentHash
	put(t, s, d1, d2, doc(3, 5))
	if err := s.db.Update(func(txn *badger.Txn) error { // what expiry leaves of doc 1
		return txn.Delete(appendDocKey(nil, 1))
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := candidates(t, s, []uint64{5}, 10); !slices.Equal(got, []uint64{2, 3}) {
		t.Errorf("Candidates = %v, want [2 3]", got)
	}
	if d, ok, err := s.Exact(d1.ContentHash, 10); err != nil || !ok || d.Seq != 2 {
		t.Errorf("Exact = seq %d, %v, %v; want 2", d.Seq, ok, err)
	}
}

// A group's postings come out in seq order even when documents arrive out of order.
func TestPutOutOfOrder(t *testing.T) {
	modes(t, Options{MaxBucket: 2}, func(t *testing.T, s *Store) {
		for _, seq := range []uint64{5, 3, 4, 1} {
			d := doc(seq, 8)
			d.ContentHash = 50
			put(t, s, d)
		}
		if got, capped := candidates(t, s, []uint64{8}, 10); !slices.Equal(got, []uint64{1, 3}) || capped.Buckets != 1 {
			t.Errorf("Candidates = %v %+v, want [1 3] cut", got, capped)
		}
		if got, _ := candidates(t, s, []uint64{8}, 4); !slices.Equal(got, []uint64{1, 3}) {
			t.Errorf("Candidates before 4 = %v, want [1 3]", got)
		}
		for before, want := range map[uint64]uint64{2: 1, 10: 1} {
			if d, ok, err := s.Exact(50, before); err != nil || !ok || d.Seq != want {
				t.Errorf("Exact(before %d) = %d, %v, %v; want %d", before, d.Seq, ok, err, want)
			}
		}
		put(t, s, doc(3, 8)) // a re-Put changes nothing
		if got, _ := candidates(t, s, []uint64{8}, 10); !slices.Equal(got, []uint64{1, 3}) {
			t.Errorf("Candidates after re-Put = %v, want [1 3]", got)
		}
	})
}

func TestPutRejects(t *testing.T) {
	s := openMem(t, Options{})
	f := func(d Doc, want string) {
		t.Helper()
		if err := s.Put([]Doc{d}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Put(seq %d) = %v, want error containing %q", d.Seq, err, want)
		}
	}
	f(Doc{ID: "x"}, "no sequence number")
	f(Doc{Seq: 1, Bands: make([]uint64, MaxBands+1)}, "at most 256")
	f(Doc{Seq: 1, Sketch: make([]byte, 16<<20)}, "exceed one transaction")
	if err := s.Put(nil); err != nil {
		t.Errorf("Put(nil) = %v", err)
	}
}

func TestPutSplitsBigBatches(t *testing.T) {
	s := openMem(t, Options{})
	// 200 × 100 KiB = 20 MiB, about twice badger's transaction limit.
	docs := make([]Doc, 200)
	for i := range docs {
		docs[i] = doc(uint64(i+1), uint64(i%7))
		docs[i].Sketch = bytes.Repeat([]byte{byte(i)}, 100<<10)
	}
	put(t, s, docs...)
	for _, want := range docs {
		got, ok, err := s.Get(want.Seq)
		if err != nil || !ok {
			t.Fatalf("Get(%d) = %v, %v", want.Seq, ok, err)
		}
		sameDoc(t, got, want)
	}
	// Each transaction's postings reach the indexes, and only once: a hash
	// and a band each, and a replay.
	if st := s.Stats(); st.Postings != 400 || st.Replays != 200 {
		t.Errorf("%d postings and %d replays after a Put split into transactions, want 400 and 200", st.Postings, st.Replays)
	}
	for band := range uint64(7) {
		var want []uint64
		for seq := band + 1; seq <= 200 && len(want) < DefaultMaxBucket; seq += 7 {
			want = append(want, seq)
		}
		if got, _ := candidates(t, s, []uint64{band}, 201); !slices.Equal(got, want[:min(len(want), DefaultMaxCandidates)]) {
			t.Errorf("Candidates(band key %d) = %v, want %v", band, got, want)
		}
	}
	if st := s.Stats(); st.Docs != 200 {
		t.Errorf("Stats.Docs = %d, want 200", st.Docs)
	}
	if seq := s.Reserve(); seq != 201 {
		t.Errorf("Reserve = %d, want 201", seq)
	}
}

// TestNoExactIndex: a store opened with NoExactIndex (a shard's) writes no
// content-hash group — fewer keys per document — refuses Exact, and still
// finds documents by their keys and by replay.
func TestNoExactIndex(t *testing.T) {
	modes(t, Options{NoExactIndex: true, SetKeys: true}, func(t *testing.T, s *Store) {
		put(t, s, doc(1, 11, 12), doc(2, 12, 13))
		if _, _, err := s.Exact(1001, 10); !errors.Is(err, errNoExactIndex) {
			t.Errorf("Exact on a NoExactIndex store: %v, want errNoExactIndex", err)
		}
		got, _, err := s.Candidates(nil, []uint64{12}, 10)
		if err != nil || !slices.Equal(seqsOf(got), []uint64{1, 2}) {
			t.Fatalf("Candidates = %v, %v; want [1 2]", seqsOf(got), err)
		}
		two := doc(2)
		if d, ok, err := s.Replayed(two.replayKey(), 1002); err != nil || !ok || d.Seq != 2 {
			t.Fatalf("Replayed = %d, %v, %v; want seq 2", d.Seq, ok, err)
		}
		// Two set keys a document and no content-hash group: 4 postings, and
		// the one marker lists them after each document's replay posting.
		if st := s.Stats(); st.Postings != 4 || st.Replays != 2 {
			t.Errorf("%d postings and %d replays, want 4 (no content-hash group) and 2", st.Postings, st.Replays)
		}
		var keys []int
		if _, ok := eachMarked(keyValue(t, s, appendMarkerKey(nil, 0)), nil, func(ps []posting) { keys = append(keys, len(ps)) }); !ok || !slices.Equal(keys, []int{1, 2, 1, 2}) {
			t.Errorf("marker: keys a document %v (well-formed %v), want [1 2 1 2]", keys, ok)
		}
	})
}

// TestRecordsInValueLog: on disk, records (of valueThreshold bytes or more)
// live in the value log and the LSM tree keeps the keys and small values, so
// Stats reports them apart (Badger's own table sizes would count the value
// bytes a table points to too); records read back whole after a reopen.
func TestRecordsInValueLog(t *testing.T) {
	const n, sketchLen = 2000, 512
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = doc(uint64(i+1), uint64(i), uint64(i)+n)
		docs[i].Sketch = bytes.Repeat([]byte{byte(i)}, sketchLen)
	}
	put(t, s, docs...)
	if err := s.Close(); err != nil { // flushes the memtable into a table
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	st := s.Stats()
	if st.VLogBytes < n*sketchLen || st.LSMBytes == 0 || st.LSMBytes > st.VLogBytes/3 {
		t.Errorf("%d records of %d-byte sketches: %d bytes of value log, %d of tables; want the records in the value log, only keys and markers in the tables",
			n, sketchLen, st.VLogBytes, st.LSMBytes)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		got, ok, err := s.Get(docs[i].Seq)
		if err != nil || !ok {
			t.Fatalf("Get(%d) = %v, %v", docs[i].Seq, ok, err)
		}
		sameDoc(t, got, docs[i])
	}
}

// TestRecordMovedByValueLogGC: Badger's value-log GC moves a file's live
// records and deletes the file; a record whose key was read before and
// whose value is read after comes back empty from Badger, and the store reads
// it again in a fresh transaction instead of failing with ErrCorrupt.
func TestRecordMovedByValueLogGC(t *testing.T) {
	defer func(size int64) { valueLogFileSize = size }(valueLogFileSize)
	valueLogFileSize = 1 << 20
	const n, sketchLen = 3000, 1024
	dir := t.TempDir()
	// 32 MiB memtables: level 0 is due for compaction at 5 tables (level0Tables).
	o := Options{GCInterval: -1, MemtableBytes: 32 << 20}
	s := openDisk(t, dir, o)
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = doc(uint64(i+1), uint64(i))
		docs[i].Sketch = bytes.Repeat([]byte{byte(i)}, sketchLen)
	}
	for i := 0; i < n; i += 100 { // a value-log file fills between writes
		put(t, s, docs[i:i+100]...)
	}
	// Rewrite the first 600 records (of the first file's 1,000) again
	// and again, each time into a level-0 table of its own (Close flushes
	// the memtable), until level 0 is due for compaction: the compaction
	// drops their old copies and counts them as the first file's garbage.
	seqs, clusters := seqsOf(docs[:600]), make([]uint64, 600)
	const rounds = 6 // level 0 is due for compaction at 5 tables
	for round := range rounds {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openDisk(t, dir, o)
		for i := range clusters {
			clusters[i] = uint64(round)
		}
		if _, err := s.SetClusters(seqs, clusters); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for a compaction of level 0 (it takes every table there when it
	// starts, the first two among them), then read a record of the first
	// file whose key Badger finds before the GC moves it and deletes the
	// file, and whose value it reads after.
	deadline := time.Now().Add(20 * time.Second)
	for s.LevelShape()[0] == rounds { // tables on level 0
		if time.Now().After(deadline) {
			t.Fatalf("level 0 not compacted within 20 s:\n%s", s.db.LevelsToString())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var gcErr error
	afterRecordGet = func() {
		afterRecordGet = nil
		gcErr = s.db.RunValueLogGC(0.5)
	}
	defer func() { afterRecordGet = nil }()
	if _, ok, err := s.Get(docs[700].Seq); err != nil || !ok || gcErr != nil {
		t.Fatalf("record %d read across a value-log GC: %v, %v (GC: %v; the test needs it to rewrite the first file)", docs[700].Seq, ok, err, gcErr)
	}
	// The GC picks the file with the most garbage; the first file ties with
	// the rewrite rounds' files (600 records each) and has the lowest id. If
	// it picked another, the read above took no retry: say so.
	if _, err := os.Stat(filepath.Join(dir, "000001.vlog")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the GC left the first value-log file (%v): the read did not cross its removal", err)
	}
	for _, i := range []int{700, 800} { // moved by the GC
		got, ok, err := s.Get(docs[i].Seq)
		if err != nil || !ok {
			t.Fatalf("record %d after the GC: %v, %v", docs[i].Seq, ok, err)
		}
		sameDoc(t, got, docs[i])
	}
}
