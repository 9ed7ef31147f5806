package state

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap/zaptest"
)

// openMem opens an in-memory store closed at the end of the test.
func openMem(t testing.TB, o Options) *Store {
	t.Helper()
	o.InMemory = true
	return mustOpen(t, o)
}

// openDisk opens a store in dir closed at the end of the test (Close is idempotent,
// so tests may close it earlier).
func openDisk(t testing.TB, dir string, o Options) *Store {
	t.Helper()
	o.Dir = dir
	return mustOpen(t, o)
}

func mustOpen(t testing.TB, o Options) *Store {
	t.Helper()
	if o.Logger == nil {
		o.Logger = zaptest.NewLogger(t)
	}
	s, err := Open(o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// modes runs f against an in-memory and an on-disk store.
func modes(t *testing.T, o Options, f func(t *testing.T, s *Store)) {
	t.Run("memory", func(t *testing.T) { f(t, openMem(t, o)) })
	t.Run("disk", func(t *testing.T) { f(t, openDisk(t, t.TempDir(), o)) })
}

// doc builds a document whose content hash is 1000+seq unless changed.
func doc(seq uint64, bands ...uint64) Doc {
	return Doc{Seq: seq, ID: "id-" + string(rune('a'+seq%26)), ContentHash: 1000 + seq, Bands: bands, Verdict: 1}
}

func put(t testing.TB, s *Store, docs ...Doc) {
	t.Helper()
	if err := s.Put(docs); err != nil {
		t.Fatalf("Put: %v", err)
	}
}

// sameDoc fails unless got is want as read back: Bands dropped, time compared
// as an instant, similarity by its bits, empty sketch as nil.
func sameDoc(t testing.TB, got, want Doc) {
	t.Helper()
	if !got.Time.Equal(want.Time) || got.Time.IsZero() != want.Time.IsZero() {
		t.Errorf("seq %d: Time = %v, want %v", want.Seq, got.Time, want.Time)
	}
	if !bytes.Equal(got.Sketch, want.Sketch) {
		t.Errorf("seq %d: Sketch = %x, want %x", want.Seq, got.Sketch, want.Sketch)
	}
	if math.Float32bits(got.Similarity) != math.Float32bits(want.Similarity) { // NaN-safe
		t.Errorf("seq %d: Similarity = %v, want %v", want.Seq, got.Similarity, want.Similarity)
	}
	got.Similarity, want.Similarity = 0, 0
	if !got.OfTime.Equal(want.OfTime) {
		t.Errorf("seq %d: OfTime = %v, want %v", want.Seq, got.OfTime, want.OfTime)
	}
	got.Time, want.Time = time.Time{}, time.Time{}
	got.OfTime, want.OfTime = time.Time{}, time.Time{}
	got.Sketch, want.Sketch = nil, nil
	want.Bands = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func seqsOf(docs []Doc) []uint64 {
	out := make([]uint64, len(docs))
	for i := range docs {
		out[i] = docs[i].Seq
	}
	return out
}

func candidates(t testing.TB, s *Store, bands []uint64, before uint64) ([]uint64, Capped) {
	t.Helper()
	got, capped, err := s.Candidates(nil, bands, before)
	if err != nil {
		t.Fatalf("Candidates(%v, %d): %v", bands, before, err)
	}
	return seqsOf(got), capped
}

// keyValue returns the value stored under key, failing the test if none is.
func keyValue(t testing.TB, s *Store, key []byte) []byte {
	t.Helper()
	var v []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err == nil {
			v, err = item.ValueCopy(nil)
		}
		return err
	})
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	return v
}

// storedFormat returns the format marker s holds.
func storedFormat(t testing.TB, s *Store) uint64 {
	t.Helper()
	var format uint64
	if err := s.db.View(func(txn *badger.Txn) (err error) {
		format, _, err = getUint(txn, metaFormat)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return format
}

// reopenUpgraded closes s, a state of format from in dir, opens it again and
// fails unless Open raised its format to this build's.
func reopenUpgraded(t testing.TB, s *Store, dir string, from int) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if format := storedFormat(t, s); format != formatVersion {
		t.Fatalf("format after opening a format-%d state: %d, want %d", from, format, formatVersion)
	}
	return s
}
