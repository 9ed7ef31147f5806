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
// appended again by a later batch (a replay) keeps its copies held for the
// joined cluster; an overdue final releases with the cluster held;
// the commit bound never passes what is unsettled or held.
func TestSettling(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newSettling(10 * time.Second)
	b1, b2, b3 := s.batchAt("k1", 7), s.batchAt("k2", 9), s.batchAt("k3", 12)
	if s.batchAt("k1", 30) != b1 {
		t.Fatal("a resent record of a batch does not keep the batch's first offset")
	}
	m := docKey{"pages/0/1", 11}
	s.add(m, b1, now, 100, 7, 1111, now)
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
	s.add(docKey{d.a.source, d.a.hash}, b2, now, 200, 9, 1111, now) // the duplicate reached other shards too
	e := dup("pages/1/6", 12, b3, 200)                              // a duplicate of the duplicate
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
	s.view(docKey{d.a.source, d.a.hash}, got[0].a.dec.Cluster) // as shardRun.answerReleased does
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

	// The original's input record is replayed by a later batch while its
	// first batch is still out: the copy in between stays held, and the
	// first final to come (from either batch) releases it with the joined
	// cluster.
	s.add(m, b1, now, 100, 7, 1111, now)
	s.hold(dup("pages/1/5", 9, b2, 100))
	b4 := s.batchAt("k4", 20)
	s.add(m, b4, now, 100, 20, 1111, now)
	if s.nheld != 1 {
		t.Fatalf("the replaying batch released what was held: %d held, want 1", s.nheld)
	}
	if s.holds(&stream.Decision{OfPos: 100}, b4) {
		t.Error("a duplicate from the replaying batch itself is held: the batch could never settle")
	}
	late := dup("pages/1/7", 25, s.batchAt("k5", 25), 100)
	if !s.holds(&late.a.dec, late.batch) {
		t.Error("a duplicate from after the replaying batch is not held")
	}
	got, _ = s.settle(&final{source: m.source, hash: m.hash, changed: true, dec: stream.Decision{Cluster: 4242}})
	if len(got) != 1 || got[0].a.dec.Cluster != 4242 {
		t.Fatalf("the original's final released %+v, want the duplicate held since before the replay, with cluster 4242", got)
	}
	if got, ok := s.settle(&final{source: m.source, hash: m.hash}); ok || got != nil {
		t.Errorf("the replaying batch's final, after the first: released %v", got)
	}

	// A probe sent again: answered at once when nothing is held for it;
	// its held answer stays held at the first resend and is forgotten at
	// the second (the probe is answered then; the store's
	// Doc.Provisional keeps a replay of it from being held again).
	if s.resent(late.a.source, late.a.hash, 1) {
		t.Error("a probe sent again with nothing held for it is not answered")
	}
	s.add(m, b1, now, 100, 7, 1111, now)
	s.hold(late)
	if !s.resent(late.a.source, late.a.hash, 1) || s.nheld != 1 {
		t.Fatal("at the first resend a held answer is not kept held")
	}
	if s.resent(late.a.source, late.a.hash, 2) || s.nheld != 0 {
		t.Fatalf("at the second resend the answer is still held: %+v", s.held)
	}

	s = newSettling(10 * time.Second)
	s.add(m, b1, now, 100, 7, 1111, now)
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
	f := func(key []byte, want string, resent int) {
		t.Helper()
		if got, r := batchKey(key); got != want || r != resent {
			t.Errorf("batchKey(%x) = %x, %v; want %x, %v", key, got, r, want, resent)
		}
	}
	f([]byte("12345678"), "12345678", 0)
	f([]byte("12345678\x01"), "12345678", 1)
	f([]byte("12345678\x02"), "12345678", 2)
	f([]byte("12345678\x00"), "12345678\x00", 0)
	f([]byte("1234567\x01"), "1234567\x01", 0) // an 8-byte key that ends like a resend count
	f(nil, "", 0)
}

// TestSettlingReplays follows an original whose input record a later batch
// appends again: the copies held on it from batches in between keep waiting
// for a final (the first batch's front may be finishing it) unless the
// replay came abandonAfter past the first append, and a copy of the
// replaying batch itself is not held. A replayed copy is held as any copy
// (a copy whose answer went out for good is answered before holds is asked:
// shardRun.fixed).
func TestSettlingReplays(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newSettling(10 * time.Second)
	b1, b2, b3 := s.batchAt("k1", 7), s.batchAt("k2", 9), s.batchAt("k3", 12)
	m := docKey{"pages/0/1", 11}
	s.add(m, b1, now, 100, 7, 1111, now)
	d := heldAnswer{offset: 9, batch: b2, on: 100,
		a: answer{source: "pages/1/5", hash: 22, dec: stream.Decision{Verdict: stream.NearDuplicate, OfPos: 100, Cluster: 1111}}}
	s.hold(d)
	replay := d.a.dec
	replay.Replayed = true
	if !s.holds(&replay, b3) || s.sameBatch(&replay, b3) {
		t.Error("a replayed copy whose first answer is held is not held: its two outputs could differ")
	}
	s.add(m, b3, now, 100, 12, 1111, now) // the original's record replayed
	if s.nheld != 1 {
		t.Errorf("the replay released what was held: %d held, want 1", s.nheld)
	}
	if s.holds(&replay, b3) || !s.sameBatch(&replay, b3) {
		t.Error("a copy from the replaying batch itself is held: the batch could never settle")
	}
	if !s.holds(&replay, b2) {
		t.Error("a copy from a batch in between is not held")
	}
	got, ok := s.settle(&final{source: m.source, hash: m.hash, changed: true, dec: stream.Decision{Cluster: 4242}})
	if !ok || len(got) != 1 || got[0].a.dec.Cluster != 4242 {
		t.Errorf("the original's final released %+v, want the copy with the joined cluster 4242", got)
	}

	// A replay abandonAfter past the first append (by the records'
	// timestamps): the first batch is taken as abandoned, and the copies
	// from batches in between go out with the cluster held here.
	s.add(m, b1, now, 100, 7, 1111, now)
	s.hold(d)
	late := now.Add(s.abandonAfter)
	b5 := s.batchAt("k5", 40)
	got = s.add(m, b5, late, 100, 40, 1111, late)
	if len(got) != 1 || got[0].a.source != d.a.source || got[0].a.dec.Cluster != 1111 || s.nheld != 0 {
		t.Fatalf("a late replay released %+v (%d held), want the copy in between with the cluster held", got, s.nheld)
	}
}

// TestSameBatchWithoutFinal: a copy of a document of its own batch is
// provisional even when the original waits for no final here (it reached
// this shard only): the front may still change its cluster as it joins.
func TestSameBatchWithoutFinal(t *testing.T) {
	s := newSettling(10 * time.Second)
	b := s.batchAt("k1", 70)
	s.batchAt("k1", 71) // the batch's second record
	later := s.batchAt("k2", 80)
	for _, of := range []uint64{positionOf(70, 3), positionOf(71, 0)} {
		d := stream.Decision{Verdict: stream.NearDuplicate, OfPos: of}
		if !s.sameBatch(&d, b) {
			t.Errorf("a copy of %x in the original's batch is not provisional", of)
		}
		if s.sameBatch(&d, later) || s.holds(&d, later) {
			t.Errorf("a copy of %x in a later batch counts as the original's batch, or is held with nothing to wait for", of)
		}
	}
}
