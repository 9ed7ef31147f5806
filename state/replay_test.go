package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// replayDoc is a document with 16 bands of its own and a content hash of its
// own, except that every seventh document repeats the hash and bands 0-1 of the
// one before it, so that groups have more than one posting.
func replayDoc(seq uint64) Doc {
	d := Doc{Seq: seq, ID: fmt.Sprint("doc-", seq), Source: fmt.Sprint("pages/0/", seq), Verdict: 1}
	g := seq
	if seq%7 == 0 {
		g--
	}
	d.ContentHash = splitmix64(g)
	d.Bands = make([]uint64, 16)
	for i := range d.Bands {
		d.Bands[i] = splitmix64(seq<<8 | uint64(i))
		if i < 2 {
			d.Bands[i] = splitmix64(1<<60 | g<<8 | uint64(i))
		}
	}
	return d
}

// putReplayDocs puts documents from..to-1 in batches of n.
func putReplayDocs(t *testing.T, s *Store, from, to uint64, n int) {
	t.Helper()
	var batch []Doc
	for seq := from; seq < to; seq++ {
		if batch = append(batch, replayDoc(seq)); len(batch) == n || seq == to-1 {
			put(t, s, batch...)
			batch = batch[:0]
		}
	}
}

// findAll fails unless every document from..to-1 is found by each lookup.
func findAll(t *testing.T, s *Store, from, to uint64) {
	t.Helper()
	for seq := from; seq < to; seq++ {
		d := replayDoc(seq)
		if got, ok, err := s.Replayed(d.Source, d.ContentHash); err != nil || !ok || got.Seq != seq {
			t.Fatalf("Replayed(doc %d) = seq %d, %v, %v", seq, got.Seq, ok, err)
		}
		first := seq
		if seq%7 == 0 {
			first--
		}
		if got, ok, err := s.Exact(d.ContentHash, seq+1); err != nil || !ok || got.Seq != first {
			t.Fatalf("Exact(doc %d) = seq %d, %v, %v; want %d", seq, got.Seq, ok, err, first)
		}
		got, _ := candidates(t, s, d.Bands, seq+1)
		want := []uint64{first, seq}
		if first == seq {
			want = want[1:]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Candidates(doc %d) = %v, want %v", seq, got, want)
		}
	}
}

// TestReplayPostingsInMarkers: a document's replay posting is written in
// its transaction's marker, not as a key of its own, Stage's included, and
// the index rebuilt at Open finds every document again; pairs never stored
// are not found.
func TestReplayPostingsInMarkers(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	putReplayDocs(t, s, 1, 2001, 250)
	staged := replayDoc(2001)
	if err := s.Stage([]Doc{staged}); err != nil {
		t.Fatal(err)
	}
	for _, k := range liveKeys(t, s) {
		if k[0] != prefixDoc && k[0] != prefixMarker {
			t.Fatalf("key %q written: only records and markers should be", k)
		}
	}
	st := s.Stats()
	if st.Postings != 2000*17 || st.Replays != 2001 { // a hash and 16 bands each; a replay each, the staged one's too
		t.Errorf("%d postings and %d replays, want %d and 2001", st.Postings, st.Replays, 2000*17)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if got := s.Stats(); got.Postings != st.Postings || got.Replays != st.Replays {
		t.Errorf("after reopen %d postings and %d replays, %d and %d before", got.Postings, got.Replays, st.Postings, st.Replays)
	}
	findAll(t, s, 1, 2001)
	if d, ok, err := s.Replayed(staged.Source, staged.ContentHash); err != nil || !ok || d.Seq != staged.Seq {
		t.Errorf("the staged document after reopen: Replayed = %d, %v, %v", d.Seq, ok, err)
	}
	if d, ok, err := s.Exact(staged.ContentHash, staged.Seq+1); err != nil || (ok && d.Seq == staged.Seq) {
		t.Errorf("the staged document is found by Exact: %d, %v, %v", d.Seq, ok, err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for range 10_000 {
		d := replayDoc(1 + r.Uint64N(2000))
		if _, ok, err := s.Replayed(d.Source, d.ContentHash^1); ok || err != nil { // another hash
			t.Fatalf("Replayed(%q, another hash) = %v, %v", d.Source, ok, err)
		}
		if _, ok, err := s.Replayed(d.ID, d.ContentHash); ok || err != nil { // the id, not the source
			t.Fatalf("Replayed(%q, its hash) = %v, %v", d.ID, ok, err)
		}
	}
}

// TestReplayedChecksRecords: a replay posting that leads to another pair's
// record (the index keeps fingerprints, so pairs may share a slot) or to
// no record is skipped, and of several matching records the last Put wins.
func TestReplayedChecksRecords(t *testing.T) {
	s := openMem(t, Options{})
	a, b := replayDoc(1), replayDoc(2)
	put(t, s, a, b)
	ka := replayIndexKey(a.Source, a.ContentHash)
	s.addPostings([]posting{{key: ka, seq: 2, replay: true}, {key: ka, seq: 900, replay: true}}) // b's record; none
	if d, ok, err := s.Replayed(a.Source, a.ContentHash); err != nil || !ok || d.Seq != 1 {
		t.Errorf("Replayed(a) beside another pair's and a missing record = %d, %v, %v; want 1", d.Seq, ok, err)
	}
	again := a
	again.Seq, again.Verdict = 3, 2
	put(t, s, again)
	if d, ok, err := s.Replayed(a.Source, a.ContentHash); err != nil || !ok || d.Seq != 3 || d.Verdict != 2 {
		t.Errorf("Replayed(a) Put again = %d (verdict %d), %v, %v; want 3, the last Put", d.Seq, d.Verdict, ok, err)
	}
	// More postings under one key than replayed reads at a time.
	for seq := uint64(4); seq < 4+3*replayWindow; seq++ {
		d := a
		d.Seq = seq
		put(t, s, d)
	}
	if d, ok, err := s.Replayed(a.Source, a.ContentHash); err != nil || !ok || d.Seq != 3+3*replayWindow {
		t.Errorf("Replayed(a) Put %d times = %d, %v, %v; want the last", 3+3*replayWindow, d.Seq, ok, err)
	}
}

// TestFormat4ReplayKeys opens a state of format 4, which kept a replay key
// for each document: Open loads them into the replay index and raises the
// format; the documents are replayed, the keys never written again, and a
// pair Put again after the upgrade is found in its new record.
func TestFormat4ReplayKeys(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	putReplayDocs(t, s, 1, 301, 100)
	err := s.db.Update(func(txn *badger.Txn) error {
		errs := []error{txn.Set(metaKey(metaFormat), binary.BigEndian.AppendUint64(nil, 4))}
		for seq := uint64(1); seq < 301; seq++ {
			d := replayDoc(seq)
			errs = append(errs, txn.Set(appendReplayKey(nil, d.Source, d.ContentHash), appendSeqValue(nil, seq)))
		}
		return errors.Join(errs...)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Take the replay postings out of the markers, as format 4 wrote them.
	err = s.db.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{prefixMarker}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			var published []posting
			if _, ok := eachMarked(v, nil, func(ps []posting) {
				if !ps[0].replay {
					published = append(published, ps...)
				}
			}); !ok {
				return fmt.Errorf("marker %x unreadable", it.Item().Key())
			}
			if err := txn.Set(it.Item().KeyCopy(nil), appendMarker(nil, published)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s = reopenUpgraded(t, s, dir, 4)
	if st := s.Stats(); st.Replays != 300 {
		t.Errorf("%d replay postings loaded from 300 replay keys", st.Replays)
	}
	findAll(t, s, 1, 301)
	again := replayDoc(150)
	again.Seq, again.Verdict = 301, 3
	put(t, s, again)
	if d, ok, err := s.Replayed(again.Source, again.ContentHash); err != nil || !ok || d.Seq != 301 {
		t.Errorf("Replayed of a format-4 pair Put again = %d, %v, %v; want 301", d.Seq, ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if d, ok, err := s.Replayed(again.Source, again.ContentHash); err != nil || !ok || d.Seq != 301 {
		t.Errorf("after reopen, Replayed of a format-4 pair Put again = %d, %v, %v; want 301", d.Seq, ok, err)
	}
	findAll(t, s, 1, 150)
	findAll(t, s, 151, 301)
	replayKeys := 0
	for _, k := range liveKeys(t, s) {
		if k[0] == prefixReplay {
			replayKeys++
		}
	}
	if replayKeys != 300 {
		t.Errorf("%d replay keys after the upgrade and a Put, want the 300 of format 4", replayKeys)
	}
}

// TestReplaySplitWrites: a Stage and a Put too large for one transaction
// are split between documents, and every document's replay posting
// reaches the index once, and again after a reopen.
func TestReplaySplitWrites(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	// 100 × 50 KiB = 5 MiB a write, several times badger's transaction limit
	// with 8 MiB memtables.
	docs := make([]Doc, 200)
	for i := range docs {
		docs[i] = replayDoc(uint64(i + 1))
		docs[i].Sketch = make([]byte, 50<<10)
	}
	if err := s.Stage(docs[:100]); err != nil {
		t.Fatal(err)
	}
	put(t, s, docs[100:]...)
	check := func(when string) {
		t.Helper()
		if st := s.Stats(); st.Replays != 200 || st.Postings != 100*17 {
			t.Errorf("%s: %d replays and %d postings, want 200 and %d", when, st.Replays, st.Postings, 100*17)
		}
		for _, d := range docs {
			if got, ok, err := s.Replayed(d.Source, d.ContentHash); err != nil || !ok || got.Seq != d.Seq {
				t.Fatalf("%s: Replayed(doc %d) = %d, %v, %v", when, d.Seq, got.Seq, ok, err)
			}
		}
	}
	check("written")
	if n := s.markers; n < 4 {
		t.Errorf("the two writes took %d transactions, want them split", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	check("after reopen")
}

// TestReplayRestage: a document staged again under its seq with another
// verdict (as a shard of the sharded index rewrites one with its final
// verdict) keeps one replay posting, and is replayed with the new verdict,
// also after a reopen.
func TestReplayRestage(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	d := replayDoc(1)
	put(t, s, d)
	d.Verdict = 4
	if err := s.Stage([]Doc{d}); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"staged again", "after reopen"} {
		if st := s.Stats(); st.Replays != 1 {
			t.Errorf("%s: %d replay postings, want 1", when, st.Replays)
		}
		if got, ok, err := s.Replayed(d.Source, d.ContentHash); err != nil || !ok || got.Verdict != 4 {
			t.Errorf("%s: Replayed = verdict %d, %v, %v; want 4", when, got.Verdict, ok, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openDisk(t, dir, Options{})
	}
}

// Expired documents are not replayed, and their replay postings leave the
// index with their other postings at the next sweep.
func TestReplayTTL(t *testing.T) {
	t.Parallel()
	s := openMem(t, Options{TTL: time.Second})
	putReplayDocs(t, s, 1, 301, 100)
	if st := s.Stats(); st.Postings != 300*17 || st.Replays != 300 {
		t.Fatalf("after Put: %d postings and %d replays, want 17 and 1 for each of 300 documents", st.Postings, st.Replays)
	}
	time.Sleep(2 * time.Second)
	for _, seq := range []uint64{1, 150, 300} {
		d := replayDoc(seq)
		if _, ok, err := s.Replayed(d.Source, d.ContentHash); ok || err != nil {
			t.Errorf("Replayed(doc %d) after expiry = %v, %v", seq, ok, err)
		}
		if got, _ := candidates(t, s, d.Bands, 1000); len(got) != 0 {
			t.Errorf("Candidates(doc %d) after expiry = %v", seq, got)
		}
	}
	phase := time.Now()
	putReplayDocs(t, s, 1000, 1100, 10)
	s.sweep(true)
	if st := s.Stats(); st.Postings > 17*100 || st.Replays > 100 {
		t.Errorf("after a sweep the indexes hold %d postings and %d replays, want at most 17 and 1 for each of the 100 documents since the expiry",
			st.Postings, st.Replays)
	}
	if took := time.Since(phase); took < 900*time.Millisecond {
		findAll(t, s, 1000, 1100)
	} else { // a loaded machine: the first of them may have expired meanwhile
		t.Logf("writing 100 documents took %s, longer than the TTL: checking the last one only", took)
		findAll(t, s, 1099, 1100)
	}
}

// Readers look up documents while one goroutine stages and publishes more.
// Every document whose Stage (Publish) returned before a lookup began must
// be found by it.
func TestReplayConcurrentPublish(t *testing.T) {
	s := openMem(t, Options{})
	const docs = 600
	var staged, published atomic.Uint64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for seq := uint64(1); seq <= docs; seq++ {
			d := []Doc{replayDoc(seq)}
			if err := s.Stage(d); err != nil {
				errs <- err
				return
			}
			staged.Store(seq)
			if err := s.Publish(d); err != nil {
				errs <- err
				return
			}
			published.Store(seq)
		}
	})
	for r := range 3 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(r), 3))
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := lookUpSome(s, rnd, staged.Load(), published.Load()); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	findAll(t, s, 1, docs+1)
}

// lookUpSome looks up one staged and one published document (if any).
func lookUpSome(s *Store, r *rand.Rand, staged, published uint64) error {
	if staged > 0 {
		d := replayDoc(1 + r.Uint64N(staged))
		if _, ok, err := s.Replayed(d.Source, d.ContentHash); err != nil || !ok {
			return errors.Join(fmt.Errorf("staged doc %d not replayed", d.Seq), err)
		}
	}
	if published == 0 {
		return nil
	}
	d := replayDoc(1 + r.Uint64N(published))
	if _, ok, err := s.Exact(d.ContentHash, published+1); err != nil || !ok {
		return errors.Join(fmt.Errorf("published doc %d: no exact match", d.Seq), err)
	}
	got, _, err := s.Candidates(nil, d.Bands, published+1)
	if err != nil || !slices.Contains(seqsOf(got), d.Seq) {
		return errors.Join(fmt.Errorf("published doc %d: candidates %v", d.Seq, seqsOf(got)), err)
	}
	return nil
}

// TestReplayRestageAfterSweep: a record the writer found, which then
// expired and was swept past, and which the writer stages again under its
// seq (a shard's final verdict), is found again: the write lowers liveFrom.
func TestReplayRestageAfterSweep(t *testing.T) {
	t.Parallel()
	s := openMem(t, Options{TTL: time.Second})
	d := replayDoc(1)
	put(t, s, d)
	time.Sleep(2 * time.Second) // doc 1 has expired
	put(t, s, replayDoc(2))
	s.sweep(true)
	if from := s.liveFrom.Load(); from != 2 {
		t.Fatalf("after the sweep liveFrom = %d, want 2", from)
	}
	d.Verdict = 4
	if err := s.Stage([]Doc{d}); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"staged again", "after another sweep"} {
		if got, ok, err := s.Replayed(d.Source, d.ContentHash); err != nil || !ok || got.Verdict != 4 {
			t.Errorf("%s: Replayed = verdict %d, %v, %v; want 4", when, got.Verdict, ok, err)
		}
		s.sweep(true)
	}
}
