package state

import (
	"errors"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap/zaptest"
)

// TestStageThenPublish: a staged document is found by its replay key and seq,
// but no lookup can match it until it is published; publishing twice is harmless.
func TestStageThenPublish(t *testing.T) {
	modes(t, Options{}, func(t *testing.T, s *Store) {
		d := doc(s.Reserve(), 7, 8)
		d.Source = "pages/0/41"
		if err := s.Stage([]Doc{d}); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.Replayed(d.Source, d.ContentHash); err != nil || !ok {
			t.Fatalf("staged doc not replayable: %v %v", ok, err)
		} else {
			sameDoc(t, got, d)
		}
		if _, ok, _ := s.Get(d.Seq); !ok {
			t.Fatal("staged doc not found by Get")
		}
		if _, ok, _ := s.Exact(d.ContentHash, d.Seq+1); ok {
			t.Error("staged doc matched by Exact before Publish")
		}
		if seqs, _ := candidates(t, s, d.Bands, d.Seq+1); len(seqs) != 0 {
			t.Errorf("staged doc matched by Candidates before Publish: %v", seqs)
		}
		for range 2 {
			if err := s.Publish([]Doc{d}); err != nil {
				t.Fatal(err)
			}
		}
		if got, ok, _ := s.Exact(d.ContentHash, d.Seq+1); !ok || got.Seq != d.Seq {
			t.Errorf("published doc not matched by Exact: %v %+v", ok, got)
		}
		if seqs, _ := candidates(t, s, d.Bands, d.Seq+1); !slices.Equal(seqs, []uint64{d.Seq}) {
			t.Errorf("published doc: candidates %v, want [%d]", seqs, d.Seq)
		}
		if next := s.Reserve(); next <= d.Seq {
			t.Errorf("Reserve after Stage = %d, want > %d", next, d.Seq)
		}
	})
}

// TestPublishedSurvivesReopen: the index built at Open holds the documents
// published before Close, a document published twice once, and not the ones
// only staged (a crash between the two steps): those are found again only
// once published after the reopen.
func TestPublishedSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	a, b, c := doc(s.Reserve(), 7, 8), doc(s.Reserve(), 7, 9), doc(s.Reserve(), 7, 8)
	c.ContentHash = a.ContentHash
	if err := s.Stage([]Doc{a, b, c}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Publish([]Doc{a, b}); err != nil {
			t.Fatal(err)
		}
	}
	before := s.Stats()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if got := s.Stats(); got.Postings != before.Postings || got.Postings != 2*3 || got.Replays != before.Replays || got.Replays != 3 {
		t.Errorf("index after reopen: %d postings and %d replays, %d and %d before, want 6 (two documents, a hash and two bands each) and 3",
			got.Postings, got.Replays, before.Postings, before.Replays)
	}
	if seqs, _ := candidates(t, s, []uint64{7, 8}, c.Seq+1); !slices.Equal(seqs, []uint64{a.Seq, b.Seq}) {
		t.Errorf("after reopen: candidates %v, want [%d %d] (%d only staged)", seqs, a.Seq, b.Seq, c.Seq)
	}
	if got, ok, _ := s.Exact(c.ContentHash, c.Seq+1); !ok || got.Seq != a.Seq {
		t.Errorf("after reopen: Exact = %v %d, want %d", ok, got.Seq, a.Seq)
	}
	if _, ok, _ := s.Replayed(c.replayKey(), c.ContentHash); !ok {
		t.Error("the staged document is not replayable after reopen")
	}
	if err := s.Publish([]Doc{c}); err != nil {
		t.Fatal(err)
	}
	if seqs, _ := candidates(t, s, []uint64{0, 8}, c.Seq+1); !slices.Equal(seqs, []uint64{a.Seq, c.Seq}) {
		t.Errorf("after publishing the staged one: candidates %v, want [%d %d]", seqs, a.Seq, c.Seq)
	}
}

// TestCorruptMarkerFailsOpen: a published marker that is not a list of
// documents' index keys (or, of format 3, of 8-byte keys) stops Open with
// ErrCorrupt, rather than leaving its documents out of the index (the
// markers are read on several goroutines, whose errors Badger's Stream would
// only log).
func TestCorruptMarkerFailsOpen(t *testing.T) {
	whole := appendMarker(nil, []posting{{key: 7, seq: 1}, {key: 8, seq: 1}})
	for _, tc := range []struct {
		name     string
		key, val []byte
	}{
		{"a key cut short", appendMarkerKey(nil, 5), whole[:len(whole)-3]},
		{"a replay posting cut short", appendMarkerKey(nil, 5), []byte{1, 0}},
		{"a replay posting cut in its key", appendMarkerKey(nil, 5), []byte{1, 0, 1, 2, 3}},
		{"a count past the end", appendMarkerKey(nil, 5), []byte{1, 200, 1}},
		{"format 3, 5 bytes", appendPublishedKey(nil, 2), []byte{1, 2, 3, 4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openDisk(t, dir, Options{})
			put(t, s, doc(1, 5), doc(2, 6))
			if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(tc.key, tc.val) }); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err := Open(Options{Dir: dir, Logger: zaptest.NewLogger(t)})
			if err == nil {
				_ = s.Close()
				t.Fatal("Open of a state with a corrupt published marker succeeded")
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("Open: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestLargeMarkersSplit: a write whose published marker would pass the
// largest value Badger takes (in memory, its value threshold: there is no
// value log) is split between documents, as a write too large for one
// transaction is, and every document is found.
func TestLargeMarkersSplit(t *testing.T) {
	s := openMem(t, Options{SetKeys: true})
	const n, keys = 200, 1024
	docs := make([]Doc, n)
	for i := range docs {
		bands := make([]uint64, keys)
		for j := range bands {
			bands[j] = uint64(i*keys + j + 1)
		}
		bands[0] = 7 // one key every document shares
		docs[i] = doc(uint64(i+1), bands...)
	}
	if err := s.Stage(docs); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(docs); err != nil {
		t.Fatalf("Publish of %d documents of %d keys: %v", n, keys, err)
	}
	got, _, err := s.Candidates(nil, []uint64{7}, n+1)
	if err != nil || len(got) != min(n, DefaultMaxCandidates) {
		t.Errorf("Candidates of the shared key: %d documents, %v; want %d", len(got), err, min(n, DefaultMaxCandidates))
	}
}
