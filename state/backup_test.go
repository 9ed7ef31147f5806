package state

import (
	"bytes"
	"slices"
	"testing"
)

// TestBackupRestore backs up a store while it is open, restores the backup into
// a new directory, and finds every document there as before — by seq, replay
// key, content hash and band — with the sequence continuing after them.
func TestBackupRestore(t *testing.T) {
	src := openDisk(t, t.TempDir(), Options{SketchVersion: "v1"})
	var docs []Doc
	for i := 0; i < 300; i++ {
		d := doc(src.Reserve(), uint64(i%17), uint64(1000+i))
		d.Source = "pages/0/" + string(rune('a'+i%26))
		docs = append(docs, d)
	}
	put(t, src, docs...)
	var buf bytes.Buffer
	if _, err := src.Backup(&buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/restored"
	if err := Restore(dir, &buf); err != nil {
		t.Fatal(err)
	}
	if err := Restore(dir, bytes.NewReader(nil)); err == nil {
		t.Error("restore into a non-empty directory succeeded")
	}
	dst := openDisk(t, dir, Options{SketchVersion: "v1"})
	for _, d := range docs {
		got, ok, err := dst.Get(d.Seq)
		if err != nil || !ok {
			t.Fatalf("seq %d lost: %v %v", d.Seq, ok, err)
		}
		sameDoc(t, got, d)
		if _, ok, _ := dst.Replayed(d.Source, d.ContentHash); !ok {
			t.Errorf("seq %d: replay key lost", d.Seq)
		}
		if e, ok, _ := dst.Exact(d.ContentHash, d.Seq+1); !ok || e.Seq != d.Seq {
			t.Errorf("seq %d: content hash lost", d.Seq)
		}
	}
	if seqs, _ := candidates(t, dst, []uint64{5}, 1<<62); len(seqs) == 0 {
		t.Error("band postings lost")
	}
	if next := dst.Reserve(); next <= docs[len(docs)-1].Seq {
		t.Errorf("sequence restarted at %d", next)
	}
	if err := dst.Compact(); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := dst.Get(docs[7].Seq); !ok || got.ID != docs[7].ID {
		t.Error("document lost by Compact")
	}
}

// TestLevelShape: the levels' shape holds still while writes only reach the
// memtable, and changes once a flush adds a table (here the one Close writes,
// seen on reopening) — what bench --settle watches for.
func TestLevelShape(t *testing.T) {
	dir := t.TempDir()
	s := openDisk(t, dir, Options{})
	empty := s.LevelShape()
	if len(empty) == 0 {
		t.Fatal("no levels")
	}
	put(t, s, doc(1, 11, 12), doc(2, 21, 22))
	if got := s.LevelShape(); !slices.Equal(got, empty) {
		t.Fatalf("shape changed with no flush: %v, then %v", empty, got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDisk(t, dir, Options{})
	if got := s.LevelShape(); slices.Equal(got, empty) || got[0] == 0 {
		t.Fatalf("shape after a flush %v, empty %v: want a table at level 0", got, empty)
	}
}
