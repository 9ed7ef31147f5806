package state

import (
	"testing"
)

// TestApplyRecordsLogPosition checks that Apply stores documents and the log
// position together, that the position survives a reopen, and that an empty
// Apply moves the position alone.
func TestApplyRecordsLogPosition(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{SetKeys: true})
	if _, ok, err := s.Applied(); err != nil || ok {
		t.Fatalf("Applied on a new store = %v, %v; want none", ok, err)
	}
	d := Doc{Seq: s.Reserve(), ID: "a", Source: "pages/0/7", ContentHash: 9, Bands: []uint64{1, 2}, Sketch: []byte{1},
		OfSource: "pages/1/3", OfID: "z"}
	if err := s.Apply([]Doc{d}, 8); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{SetKeys: true})
	next, ok, err := s.Applied()
	if err != nil || !ok || next != 8 {
		t.Fatalf("Applied after reopen = %d, %v, %v; want 8", next, ok, err)
	}
	got, ok, err := s.Replayed("pages/0/7", 9)
	if err != nil || !ok || got.OfSource != "pages/1/3" || got.OfID != "z" {
		t.Fatalf("Replayed = %+v, %v, %v; want the applied document with its original's source", got, ok, err)
	}
	cands, _, err := s.Candidates(nil, []uint64{2}, d.Seq+1)
	if err != nil || len(cands) != 1 {
		t.Fatalf("Candidates = %d docs, %v; want the applied document findable", len(cands), err)
	}
	if err := s.Apply(nil, 11); err != nil {
		t.Fatal(err)
	}
	if next, _, _ := s.Applied(); next != 11 {
		t.Fatalf("Applied after an empty Apply = %d, want 11", next)
	}
}
