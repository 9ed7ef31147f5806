package shard

import (
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// TestSettling follows one shard's view of an original that reached other
// shards and the duplicates that match it: answers from a later front batch
// wait for the original's final and go out with its joined cluster; those
// of its own batch do not wait; a chain settles link by link; an original
// appended again by a later batch (a replay) releases the answers waiting
// from batches in between; an overdue final releases with the cluster held;
// the commit bound never passes what is unsettled or held.
func TestSettling(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newSettling()
	b1, b2, b3 := s.batchAt("k1", 7), s.batchAt("k2", 9), s.batchAt("k3", 12)
	if s.batchAt("k1", 30) != b1 {
		t.Fatal("a resent record of a batch does not keep the batch's first offset")
	}
	m := docKey{"pages/0/1", 11}
	s.add(m, b1, 100, 7, 1111, now)
	dup := func(src string, offset, batch int64, of uint64) heldAnswer {
		return heldAnswer{offset: offset, batch: batch, on: of,
			a: answer{source: src, hash: 22, dec: stream.Decision{Verdict: stream.NearDuplicate, OfPos: of, Cluster: 1111}}}
	}
	d := dup("pages/1/5", 9, b2, 100)
	if !s.holds(&d.a.dec, b2) {
		t.Fatal("a duplicate from a later batch of an unsettled original is not held")
	}
	if s.holds(&d.a.dec, b1) {
		t.Fatal("a duplicate from the original's own batch is held: the batch could never settle")
	}
	s.hold(d)
	s.add(docKey{d.a.source, d.a.hash}, b2, 200, 9, 1111, now) // the duplicate reached other shards too
	e := dup("pages/1/6", 12, b3, 200)                         // a duplicate of the duplicate
	if !s.holds(&e.a.dec, b3) {
		t.Fatal("a duplicate of an unsettled duplicate is not held")
	}
	s.hold(e)
	if got := s.commitBound(50); got != 7 {
		t.Errorf("commit bound %d, want the original's offset 7", got)
	}
	if got, ok := s.settle(&final{source: "pages/9/9", hash: 1}); ok || got != nil {
		t.Errorf("a final of a document not held here released %v", got)
	}
	got, ok := s.settle(&final{source: m.source, hash: m.hash, changed: true, dec: stream.Decision{Cluster: 4242}})
	if !ok || len(got) != 1 || got[0].a.source != d.a.source || got[0].a.dec.Cluster != 4242 {
		t.Fatalf("the original's final released %+v, want the first duplicate with cluster 4242", got)
	}
	if got := s.commitBound(50); got != 9 {
		t.Errorf("commit bound %d, want the duplicate's offset 9", got)
	}
	got, _ = s.settle(&final{source: d.a.source, hash: d.a.hash}) // settled as answered
	if len(got) != 1 || got[0].a.source != e.a.source || got[0].a.dec.Cluster != 4242 {
		t.Fatalf("the duplicate's final released %+v, want the second duplicate with cluster 4242", got)
	}
	if got := s.commitBound(50); got != 50 || len(s.pending) != 0 || s.nheld != 0 {
		t.Errorf("commit bound %d with %d pending, %d held; want 50, none", got, len(s.pending), s.nheld)
	}

	// The original's front dies; a later batch replays it.
	s.add(m, b1, 100, 7, 1111, now)
	s.hold(dup("pages/1/5", 9, b2, 100))
	b4 := s.batchAt("k4", 20)
	if got := s.add(m, b4, 100, 20, 1111, now); len(got) != 1 || got[0].a.dec.Cluster != 1111 {
		t.Fatalf("the replaying batch released %+v, want the duplicate of the batch in between", got)
	}
	late := dup("pages/1/7", 25, s.batchAt("k5", 25), 100)
	if !s.holds(&late.a.dec, late.batch) {
		t.Error("a duplicate from after the replaying batch is not held")
	}

	s.drop(late.a.source, late.a.hash) // nothing held: a no-op
	s.hold(late)
	s.drop(late.a.source, late.a.hash)
	if s.nheld != 0 {
		t.Errorf("a dropped answer is still held: %+v", s.held)
	}

	s = newSettling()
	s.add(m, b1, 100, 7, 1111, now)
	s.hold(dup("pages/1/5", 9, b2, 100))
	if got, n := s.expire(now.Add(settleExpiry / 2)); n != 0 || got != nil {
		t.Errorf("expired %d before settleExpiry", n)
	}
	got, n := s.expire(now.Add(settleExpiry + time.Second))
	if n != 1 || len(got) != 1 || got[0].a.dec.Cluster != 1111 {
		t.Errorf("overdue final: expired %d, released %+v; want 1, with the cluster held", n, got)
	}
}

func TestBatchKey(t *testing.T) {
	f := func(key []byte, want string, resent bool) {
		t.Helper()
		if got, r := batchKey(key); got != want || r != resent {
			t.Errorf("batchKey(%x) = %x, %v; want %x, %v", key, got, r, want, resent)
		}
	}
	f([]byte("12345678"), "12345678", false)
	f([]byte("12345678\x01"), "12345678", true)
	f([]byte("1234567\x01"), "1234567\x01", false) // an 8-byte key that ends in the mark
	f(nil, "", false)
}
