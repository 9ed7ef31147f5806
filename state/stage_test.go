package state

import (
	"slices"
	"testing"
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
