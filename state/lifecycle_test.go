package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func TestSeqMonotonicAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	for want := uint64(1); want <= 5; want++ {
		if got := s.Reserve(); got != want {
			t.Fatalf("Reserve = %d, want %d", got, want)
		}
	}
	put(t, s, doc(3), doc(1)) // 4 and 5 reserved, never Put
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if got := s.Reserve(); got != 4 {
		t.Fatalf("Reserve after reopen = %d, want 4 (max Put seq + 1)", got)
	}
	put(t, s, doc(40))
	if got := s.Reserve(); got != 41 {
		t.Fatalf("Reserve after Put(40) = %d, want 41", got)
	}
	// A record the metadata does not know of (written behind the store's back)
	// still pushes the sequence past it on the next open.
	if err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(appendDocKey(nil, 100), appendRecord(nil, &Doc{ID: "late"}))
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if got := s.Reserve(); got != 101 {
		t.Fatalf("Reserve after reopen = %d, want 101", got)
	}
	// Once every record has expired only the metadata remembers the sequence.
	put(t, s, doc(120))
	if err := s.db.DropPrefix([]byte{prefixDoc}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if got := s.Reserve(); got != 121 {
		t.Fatalf("Reserve after reopen without records = %d, want 121", got)
	}
}

func TestSketchVersion(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{SketchVersion: "minhash128-b9r13-w5"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Options{Dir: dir, SketchVersion: "minhash64-b8r8-w5"})
	want := `state: stored sketch "minhash128-b9r13-w5" differs from configured "minhash64-b8r8-w5"`
	var mismatch *SketchMismatchError
	if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &mismatch) {
		t.Fatalf("Open with another sketch: %v, want %s", err, want)
	}
	if !strings.HasPrefix(err.Error(), "open state "+dir+": ") {
		t.Errorf("error %q does not say what was being done", err)
	}
	s = openDisk(t, dir, Options{}) // no version configured: accept the stored one
	if got := s.SketchVersion(); got != "minhash128-b9r13-w5" {
		t.Errorf("SketchVersion = %q", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	openDisk(t, dir, Options{SketchVersion: "minhash128-b9r13-w5"})
}

func TestOpenRefusesForeignDatabase(t *testing.T) {
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("x"), []byte("y")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "no format marker") {
		if s != nil {
			_ = s.Close()
		}
		t.Fatalf("Open of a foreign database = %v, want format error", err)
	}
}

func TestOpenValidates(t *testing.T) {
	_, err := Open(Options{})
	if err == nil || !strings.Contains(err.Error(), "state.dir: required") {
		t.Fatalf("Open(Options{}) = %v", err)
	}
}

func TestClosed(t *testing.T) {
	s := openMem(t, Options{})
	put(t, s, doc(1, 1))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	check := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, ErrClosed) || err.Error() != "state: closed" {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	_, _, err := s.Replayed("id-b", 1001)
	check("Replayed", err)
	_, _, err = s.Exact(1001, 10)
	check("Exact", err)
	_, _, err = s.Candidates(nil, []uint64{1}, 10)
	check("Candidates", err)
	_, _, err = s.Get(1)
	check("Get", err)
	check("Put", s.Put([]Doc{doc(2)}))
	check("SetCluster", s.SetCluster(1, 1))
	check("Scan", s.Scan(func(Doc) error { return nil }))
	if st := s.Stats(); st != (Stats{}) {
		t.Errorf("Stats after Close = %+v", st)
	}
}

func TestCloseWaitsForCallsInProgress(t *testing.T) {
	s := openMem(t, Options{})
	put(t, s, doc(1), doc(2))
	closed := make(chan error, 1)
	err := s.Scan(func(d Doc) error {
		if d.Seq == 1 {
			go func() { closed <- s.Close() }()
			time.Sleep(20 * time.Millisecond) // give Close time to start waiting
		}
		select {
		case err := <-closed:
			t.Fatalf("Close returned during Scan: %v", err)
		default:
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}

func TestScanAndSetCluster(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	put(t, s, doc(5), doc(2))
	put(t, s, doc(9))
	var seen []uint64
	err := s.Scan(func(d Doc) error {
		seen = append(seen, d.Seq)
		return s.SetCluster(d.Seq, 100+d.Seq) // writing from inside Scan is allowed
	})
	if err != nil || !slices.Equal(seen, []uint64{2, 5, 9}) {
		t.Fatalf("Scan = %v, %v; want [2 5 9]", seen, err)
	}
	stop := errors.New("stop")
	seen = seen[:0]
	if err := s.Scan(func(d Doc) error { seen = append(seen, d.Seq); return stop }); err != stop || len(seen) != 1 {
		t.Errorf("Scan returning an error = %v after %v, want stop after one", err, seen)
	}
	if err := s.SetCluster(3, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetCluster of a missing doc = %v, want ErrNotFound", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	for _, seq := range []uint64{2, 5, 9} {
		d, ok, err := s.Get(seq)
		if err != nil || !ok || d.Cluster != 100+seq {
			t.Errorf("Get(%d) after reopen: cluster %d, %v, %v; want %d", seq, d.Cluster, ok, err, 100+seq)
		}
		want := doc(seq)
		want.Cluster = 100 + seq
		sameDoc(t, d, want)
	}
}

func TestSetClusterKeepsExpiry(t *testing.T) {
	s := openMem(t, Options{TTL: time.Hour})
	put(t, s, doc(1))
	before := expiresAt(t, s, 1)
	if before == 0 {
		t.Fatal("record written without expiry")
	}
	if err := s.SetCluster(1, 7); err != nil {
		t.Fatal(err)
	}
	if after := expiresAt(t, s, 1); after != before {
		t.Errorf("ExpiresAt after SetCluster = %d, want %d", after, before)
	}
}

func expiresAt(t *testing.T, s *Store, seq uint64) uint64 {
	t.Helper()
	return keyExpiresAt(t, s, appendDocKey(nil, seq))
}

func TestTTL(t *testing.T) {
	t.Parallel()
	s := openMem(t, Options{TTL: time.Second})
	// Badger expiry is in whole seconds, rounded up: write just after a second
	// starts so the lookups right after Put run well inside the TTL.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
	d := doc(1, 5)
	put(t, s, d)
	visible := func() (n int) {
		if _, ok, _ := s.Get(1); ok {
			n++
		}
		if _, ok, _ := s.Replayed(d.ID, d.ContentHash); ok {
			n++
		}
		if _, ok, _ := s.Exact(d.ContentHash, 2); ok {
			n++
		}
		got, _ := candidates(t, s, []uint64{5}, 2)
		return n + len(got)
	}
	if n := visible(); n != 4 {
		t.Fatalf("right after Put %d of 4 lookups found the document", n)
	}
	// Expiries round up to the next whole second, so all is gone two
	// seconds after the write.
	time.Sleep(2100 * time.Millisecond)
	if n := visible(); n != 0 {
		t.Errorf("after expiry %d lookups still found the document", n)
	}
	if live := liveKeys(t, s); len(live) != 0 {
		t.Errorf("after expiry live keys remain: %q", live)
	}
	if st := s.Stats(); st.Docs != 0 {
		t.Errorf("Stats.Docs after expiry = %d, want 0", st.Docs)
	}
}

// liveKeys lists every key but metadata.
func liveKeys(t *testing.T, s *Store) (keys []string) {
	t.Helper()
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if k := it.Item().Key(); k[0] != prefixMeta {
				keys = append(keys, string(k))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// Readers run while one goroutine Puts and another Closes; under -race this checks
// the gate around the database. Every call either succeeds or returns ErrClosed.
func TestConcurrentUse(t *testing.T) {
	s := openMem(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	done := make(chan struct{})
	wg.Go(func() {
		for seq := uint64(1); ; seq++ {
			if err := s.Put([]Doc{doc(seq, seq%3, 7)}); err != nil {
				errs <- err
				return
			}
			if seq == 200 {
				close(done)
			}
		}
	})
	for range 3 {
		wg.Go(func() {
			for i := uint64(1); ; i++ {
				if _, _, err := s.Candidates(nil, []uint64{i % 3, 7}, i); err != nil {
					errs <- err
					return
				}
				if _, _, err := s.Exact(1000+i%50, i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	<-done
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call racing Close: %v", err)
		}
	}
}

// A marker lists a document's postings for the indexes built at Open: it
// must not expire before the document's record, or the document would be
// lost to lookups after a restart. Stage's marker (the replay posting)
// expires with the record; Publish's is written one TTL after its Publish,
// later than the record's Stage: it outlives the record by that much,
// harmlessly.
func TestMarkersExpireWithRecord(t *testing.T) {
	s := openMem(t, Options{TTL: time.Hour})
	d := doc(1, 5)
	if err := s.Stage([]Doc{d}); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish([]Doc{d}); err != nil {
		t.Fatal(err)
	}
	record := keyExpiresAt(t, s, appendDocKey(nil, 1))
	if record == 0 {
		t.Fatal("record written without expiry")
	}
	if at := keyExpiresAt(t, s, appendMarkerKey(nil, 0)); at != record {
		t.Errorf("Stage's marker expires at %d, the record at %d", at, record)
	}
	if at := keyExpiresAt(t, s, appendMarkerKey(nil, 1)); at < record {
		t.Errorf("Publish's marker expires at %d, the record at %d", at, record)
	}
}

func keyExpiresAt(t *testing.T, s *Store, key []byte) uint64 {
	t.Helper()
	var at uint64
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err == nil {
			at = item.ExpiresAt()
		}
		return err
	})
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	return at
}

// TestOpenUpgradesFormat1 opens a state marked format 1, as the oldest
// builds wrote, and finds its marker raised to this build's, which those
// builds refuse.
func TestOpenUpgradesFormat1(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	put(t, s, doc(1, 10))
	if err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(metaKey(metaFormat), binary.BigEndian.AppendUint64(nil, 1))
	}); err != nil {
		t.Fatal(err)
	}
	s = reopenUpgraded(t, s, dir, 1)
	if d, ok, err := s.Replayed(doc(1).ID, doc(1).ContentHash); err != nil || !ok || d.Seq != 1 {
		t.Errorf("Replayed(doc 1) = %d, %v, %v", d.Seq, ok, err)
	}
}

func TestOpenRefusesOtherFormat(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	if err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(metaKey(metaFormat), binary.BigEndian.AppendUint64(nil, formatVersion+1))
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("state: stored format %d, this build reads formats 1 to %d", formatVersion+1, formatVersion)) {
		if s != nil {
			_ = s.Close()
		}
		t.Fatalf("Open of format %d = %v", formatVersion+1, err)
	}
}

func TestExpiryRoundsUp(t *testing.T) {
	f := func(sec, nsec int64, want uint64) {
		t.Helper()
		if got := expiryOf(time.Unix(sec, nsec)); got != want {
			t.Errorf("expiryOf(%d.%09d) = %d, want %d", sec, nsec, got, want)
		}
	}
	f(10, 0, 10)
	f(10, 1, 11)
	f(10, 999_999_999, 11)
}

// TestExpiredPostingsDoNotCrowdBuckets: a bucket's oldest postings, whose
// records expired, must not take the MaxBucket reads of a lookup from the
// live ones. The store follows its oldest live record (here at once, by
// sweep; every second on its own), and lookups start there; the sweep that
// drops the expired postings from the index changes no answer.
func TestExpiredPostingsDoNotCrowdBuckets(t *testing.T) {
	s := openMem(t, Options{TTL: time.Hour, MaxBucket: 2})
	put(t, s, doc(1, 5), doc(2, 5), doc(3, 5), doc(4, 5), doc(5, 5))
	for seq := uint64(6); seq <= 40; seq++ { // so that two expired are too few to drop
		put(t, s, doc(seq, 9))
	}
	if err := s.db.Update(func(txn *badger.Txn) error { // what expiry leaves of docs 1 and 2
		return errors.Join(txn.Delete(appendDocKey(nil, 1)), txn.Delete(appendDocKey(nil, 2)))
	}); err != nil {
		t.Fatal(err)
	}
	s.sweep(false) // without it, the two reads would go to docs 1 and 2
	if st := s.Stats(); st.Postings != 40*2 || st.Replays != 40 {
		t.Errorf("after the sweep %d postings and %d replays, want 80 and 40: two expired of 40 are not worth a drop", st.Postings, st.Replays)
	}
	if got, capped := candidates(t, s, []uint64{5}, 50); !slices.Equal(got, []uint64{3, 4}) || capped.Buckets != 1 {
		t.Errorf("after: %v %+v, want [3 4], one bucket cut", got, capped)
	}
	s.sweep(true)
	if st := s.Stats(); st.Postings != 38*2 || st.Replays != 38 {
		t.Errorf("after the forced sweep %d postings and %d replays, want 76 and 38", st.Postings, st.Replays)
	}
	if got, _ := candidates(t, s, []uint64{5}, 50); !slices.Equal(got, []uint64{3, 4}) {
		t.Errorf("after the forced sweep: %v, want [3 4]", got)
	}
}
