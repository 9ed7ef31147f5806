package state

import (
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

// filterDoc is a document with 16 bands of its own and a content hash of its
// own, except that every seventh document repeats the hash and bands 0-1 of the
// one before it, so that groups have heads and postings.
func filterDoc(seq uint64) Doc {
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

// putFilterDocs puts documents from..to-1 in batches of n, each after the key
// filter's rebuild started by the one before it, if any, has finished.
func putFilterDocs(t *testing.T, s *Store, from, to uint64, n int) {
	t.Helper()
	var batch []Doc
	for seq := from; seq < to; seq++ {
		if batch = append(batch, filterDoc(seq)); len(batch) == n || seq == to-1 {
			put(t, s, batch...)
			batch = batch[:0]
			waitFilterRebuilt(t, s)
		}
	}
}

// waitFilterRebuilt waits until no key filter is being built in the background.
func waitFilterRebuilt(t *testing.T, s *Store) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); s.growth.Load() != nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the key filter's rebuild did not finish in a minute")
		}
	}
}

// TestFilterRebuildsInBackground writes while the larger filter is being
// built: the writes do not wait for it, and the keys they add reach it.
func TestFilterRebuildsInBackground(t *testing.T) {
	s := openDisk(t, t.TempDir(), Options{FilterKeys: 50})
	putFilterDocs(t, s, 1, 101, 50) // more keys than the filter was sized for
	old := s.filter.Load()
	if !old.full() {
		t.Fatalf("filter of %d keys at capacity %d is not full", old.keys.Load(), old.capacity())
	}
	scanned, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	testHookFilterBuilt = func() { close(scanned); <-release }
	// Cleanups run last first: a failing test frees the rebuild before the
	// store's Close waits for it.
	t.Cleanup(func() { free(); testHookFilterBuilt = nil })
	put(t, s, filterDoc(101)) // starts the rebuild
	<-scanned
	for seq := uint64(102); seq < 201; seq += 20 { // while the rebuild waits: keys only in the growth list
		var batch []Doc
		for j := seq; j < min(seq+20, 201); j++ {
			batch = append(batch, filterDoc(j))
		}
		put(t, s, batch...)
	}
	if s.filter.Load() != old {
		t.Fatal("the filter was replaced before its rebuild finished")
	}
	findAll(t, s, 1, 201) // through the old filter
	free()
	waitFilterRebuilt(t, s)
	if f := s.filter.Load(); f == old || f.capacity() < 2*old.capacity() {
		t.Fatalf("after the rebuild: capacity %d, was %d", f.capacity(), old.capacity())
	}
	filterHoldsAll(t, s)
	findAll(t, s, 1, 201)
}

// findAll fails unless every document from..to-1 is found by each lookup.
func findAll(t *testing.T, s *Store, from, to uint64) {
	t.Helper()
	for seq := from; seq < to; seq++ {
		d := filterDoc(seq)
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

// filterHoldsAll fails unless the key filter may hold every replay key and
// group head in the database, and returns how many there are.
func filterHoldsAll(t *testing.T, s *Store) (n int64) {
	t.Helper()
	f := s.filter.Load()
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if k := it.Item().Key(); filtered(k[0]) {
				n++
				if !f.mayExist(k) {
					return fmt.Errorf("key %q not in the filter", k)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The filter built at Open holds every key the database holds: a filter that
// forgot one would silently lose duplicates.
func TestFilterRebuiltOnReopen(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	putFilterDocs(t, s, 1, 3001, 250)
	findAll(t, s, 1, 3001)
	keys := filterHoldsAll(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if n := filterHoldsAll(t, s); n != keys {
		t.Fatalf("%d filtered keys after reopen, %d before", n, keys)
	}
	if st := s.Stats(); st.FilterKeys != keys || st.FilterBytes != newBloom(DefaultFilterKeys).bytes() {
		t.Errorf("Stats = %+v, want %d filter keys in %d bytes", st, keys, newBloom(DefaultFilterKeys).bytes())
	}
	findAll(t, s, 1, 3001)
	// The filter does its job: absent keys mostly skip Badger.
	if rate := fpRate(s.filter.Load(), rand.New(rand.NewPCG(1, 1)), 100_000); rate > 0.001 {
		t.Errorf("filter says maybe for %.3f%% of absent keys at %d keys, want ≤ 0.1%%", 100*rate, keys)
	}
}

// TestFilterOpensInBackground opens a database larger than openInBackground:
// Open returns before the filter is built, lookups and writes are right
// meanwhile (the stand-in says "maybe" to every key), and the filter built
// holds the keys written during the build too.
func TestFilterOpensInBackground(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	putFilterDocs(t, s, 1, 1001, 250)
	keys := filterHoldsAll(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	defer func(n int64) { openInBackground = n }(openInBackground)
	openInBackground = 100
	scanned, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	testHookFilterBuilt = func() { close(scanned); <-release }
	s = openDisk(t, dir, Options{})
	t.Cleanup(func() { free(); testHookFilterBuilt = nil })
	<-scanned
	if rate := fpRate(s.filter.Load(), rand.New(rand.NewPCG(3, 3)), 1000); rate != 1 {
		t.Fatalf("while the filter is built, it says maybe for %.3f of absent keys, want all", rate)
	}
	findAll(t, s, 1, 1001)
	for seq := uint64(1001); seq < 1201; seq += 50 { // while the build waits
		var batch []Doc
		for j := seq; j < seq+50; j++ {
			batch = append(batch, filterDoc(j))
		}
		put(t, s, batch...)
	}
	findAll(t, s, 1, 1201)
	free()
	waitFilterRebuilt(t, s)
	if n := filterHoldsAll(t, s); n <= keys {
		t.Errorf("%d filtered keys after the build, %d before the reopen and 200 documents more", n, keys)
	}
	findAll(t, s, 1, 1201)
	if rate := fpRate(s.filter.Load(), rand.New(rand.NewPCG(4, 4)), 100_000); rate > 0.015 {
		t.Errorf("the filter built says maybe for %.3f%% of absent keys", 100*rate)
	}
}

// A database whose keys outgrow the filter's capacity at Open is sized from a
// second scan, and one that outgrows it while open is rebuilt at twice the size.
func TestFilterGrows(t *testing.T) {
	dir := t.TempDir()
	o := Options{FilterKeys: 60}
	s := openDisk(t, dir, o)
	small := s.Stats().FilterBytes
	putFilterDocs(t, s, 1, 4001, 200)
	st := s.Stats()
	if st.FilterBytes < 16*small {
		t.Errorf("after 4000 documents the filter has %d bytes, %d at open", st.FilterBytes, small)
	}
	if capacity := s.filter.Load().capacity(); st.FilterKeys > capacity {
		t.Errorf("filter holds %d keys, capacity %d", st.FilterKeys, capacity)
	}
	keys := filterHoldsAll(t, s)
	findAll(t, s, 1, 4001)
	if rate := fpRate(s.filter.Load(), rand.New(rand.NewPCG(2, 2)), 100_000); rate > 0.015 {
		t.Errorf("filter says maybe for %.3f%% of absent keys, want ≤ 1.5%%", 100*rate)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, o)
	if f := s.filter.Load(); f.keys.Load() != keys || f.capacity() < 2*keys {
		t.Errorf("after reopen %d keys at capacity %d, want %d at 2× or more", f.keys.Load(), f.capacity(), keys)
	}
	findAll(t, s, 1, 4001)
	// Sized too small (as if the tables held few keys), the first scan overflows
	// and a second one sizes the filter for what it found.
	f := s.buildFilter(0)
	if f.keys.Load() != keys || f.capacity() < 2*keys || f.capacity() > 4*keys {
		t.Errorf("built from a low estimate: %d keys at capacity %d, want %d at 2× to 4×", f.keys.Load(), f.capacity(), keys)
	}
	s.filter.Store(f)
	filterHoldsAll(t, s)
	findAll(t, s, 1, 4001)
}

// Expired keys stay in the filter until a rebuild, which leaves them out and
// shrinks the filter back. Lookups are right before and after.
func TestFilterTTL(t *testing.T) {
	t.Parallel()
	s := openMem(t, Options{TTL: time.Second, FilterKeys: 60})
	start := s.Stats().FilterBytes
	putFilterDocs(t, s, 1, 301, 100) // 300 replay keys, more than the filter was sized for
	grown := s.Stats()
	if grown.FilterKeys < 300 || grown.FilterBytes < 4*start || grown.Postings != 300*17 {
		t.Fatalf("after Put: %+v, opened with %d bytes", grown, start)
	}
	time.Sleep(2 * time.Second)
	for _, seq := range []uint64{1, 150, 300} {
		d := filterDoc(seq)
		if !s.filter.Load().mayExist(appendReplayKey(nil, d.Source, d.ContentHash)) {
			t.Errorf("replay key of doc %d left the filter before a rebuild", seq)
		}
		if _, ok, err := s.Replayed(d.Source, d.ContentHash); ok || err != nil {
			t.Errorf("Replayed(doc %d) after expiry = %v, %v", seq, ok, err)
		}
		if got, _ := candidates(t, s, d.Bands, 1000); len(got) != 0 {
			t.Errorf("Candidates(doc %d) after expiry = %v", seq, got)
		}
	}
	// Once new keys fill it, the rebuild finds only those and sizes the filter
	// for twice their number (it would double without TTL).
	seq, phase := uint64(1000), time.Now()
	for keys := grown.FilterKeys; s.Stats().FilterKeys >= keys && seq < 1200; seq++ {
		keys = s.Stats().FilterKeys
		putFilterDocs(t, s, seq, seq+1, 1)
	}
	st := s.Stats()
	if live := int64(seq - 1000); st.FilterKeys > live || st.FilterBytes > grown.FilterBytes {
		t.Errorf("rebuilt after expiry and %d more documents: %d keys in %d bytes, want at most %d keys in at most %d bytes",
			seq-1000, st.FilterKeys, st.FilterBytes, live, grown.FilterBytes)
	}
	// The expired documents' postings leave the index at the next sweep.
	s.sweep(true)
	if st := s.Stats(); st.Postings > 17*int64(seq-1000) {
		t.Errorf("after a sweep the index holds %d postings, want at most 17 for each of the %d documents since the expiry", st.Postings, seq-1000)
	}
	if took := time.Since(phase); took < 900*time.Millisecond {
		findAll(t, s, 1000, seq)
	} else { // a loaded machine: the first of them may have expired meanwhile
		t.Logf("writing %d documents took %s, longer than the TTL: checking the last one only", seq-1000, took)
	}
	for seq%7 == 0 { // a document sharing nothing with the one before, which may have expired
		seq++
	}
	putFilterDocs(t, s, seq, seq+1, 1)
	findAll(t, s, seq, seq+1)
	filterHoldsAll(t, s)
}

// Readers look up documents while one goroutine stages and publishes more, with
// a filter small enough to be rebuilt several times meanwhile. Every document
// whose Stage (Publish) returned before a lookup began must be found by it.
func TestFilterConcurrentPublish(t *testing.T) {
	s := openMem(t, Options{FilterKeys: 60})
	opened := s.Stats().FilterBytes
	const docs = 600
	var staged, published atomic.Uint64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for seq := uint64(1); seq <= docs; seq++ {
			d := []Doc{filterDoc(seq)}
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
	if st := s.Stats(); st.FilterBytes <= opened {
		t.Errorf("filter never grew: %+v", st)
	}
	findAll(t, s, 1, docs+1)
}

// lookUpSome looks up one staged and one published document (if any).
func lookUpSome(s *Store, r *rand.Rand, staged, published uint64) error {
	if staged > 0 {
		d := filterDoc(1 + r.Uint64N(staged))
		if _, ok, err := s.Replayed(d.Source, d.ContentHash); err != nil || !ok {
			return errors.Join(fmt.Errorf("staged doc %d not replayed", d.Seq), err)
		}
	}
	if published == 0 {
		return nil
	}
	d := filterDoc(1 + r.Uint64N(published))
	if _, ok, err := s.Exact(d.ContentHash, published+1); err != nil || !ok {
		return errors.Join(fmt.Errorf("published doc %d: no exact match", d.Seq), err)
	}
	got, _, err := s.Candidates(nil, d.Bands, published+1)
	if err != nil || !slices.Contains(seqsOf(got), d.Seq) {
		return errors.Join(fmt.Errorf("published doc %d: candidates %v", d.Seq, seqsOf(got)), err)
	}
	return nil
}
