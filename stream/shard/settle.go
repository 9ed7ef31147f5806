package shard

import (
	"maps"
	"slices"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// settleExpiry is how long a shard waits for a document's final before it
// takes the document as settled with the cluster it holds. A final comes
// once the document's front has emitted its batch, or, if that front died,
// once the input partition's next owner has replayed it (after the group's
// session timeout and a rebalance); it never comes only when the input
// record is never read again.
const settleExpiry = 2 * time.Minute

// settling is what one shard run knows of the documents it stored whose
// joined decision has not come back yet, and the answers it holds back
// until it has.
//
// A shard's answer for a document that reached several shards is only its
// own view: the front joins the shards' answers, and the joined decision —
// its cluster above all — may differ from what this shard stored. A later
// duplicate of such a document takes its cluster from the shard that finds
// the match, so that shard holds the duplicate's answer back until the
// original's final (kindSettled) has come through the sequence log, and then
// answers with the original's real cluster: every duplicate's dedup.cluster
// is its original's, as one instance's is.
//
// A front batch settles only once all its answers are in, so holding must
// never make two batches wait for each other. Batches are ordered by the
// offset of the first probe record seen with their key (a front appends a
// batch's records at once; a resend carries the same key), and an answer
// only ever waits for the batch its original was first applied from, which
// came before its own — never for one of its own batch, first or replayed
// (the front gives such a duplicate its original's cluster as it joins
// them, sameBatchClusters). Every wait then points to an earlier batch, and
// the earliest batch waits for none.
//
// An original appended again (its input record replayed after a rebalance
// or a crash) still settles with the final of its first batch, whose front
// may well be alive and finishing it: taking the view held here instead
// gave a copy another cluster than the one its original was emitted with.
// But if that front died, the final comes from the replaying batch, which
// may in turn wait for a copy held from a batch in between: a replay that
// comes abandonAfter (index.answer_timeout) or more after the first append
// releases those copies at once, and a front that has waited that long
// sends its probes again (resent): the second resend releases the rest. Every release
// is decided by records of the log — their order and their timestamps —
// never by the clock but for settleExpiry, so a shard rebuilt from the log
// holds what the one it replaces answered.
//
// A copy stored in another shard whose answer went out from here before its
// original settled — released early, above — went out with this shard's
// view of the original's cluster, which the original's final may then
// change; until the copy's own final has come, a replay of it is answered
// here with the cluster it went out with (early).
//
// The log is the only channel, so a shard rebuilding from it rebuilds this
// state too: commit positions never pass the oldest document still
// unsettled or held (commitBound).
type settling struct {
	pending      map[docKey]*unsettled // stored here, reached other shards too, no final yet
	byPos        map[uint64]*unsettled
	order        []*unsettled            // in the order applied; settled ones leave from the front
	held         map[uint64][]heldAnswer // by the position of the original they wait for, each in log order
	nheld        int
	firsts       map[string]int64      // batch key → offset of its first probe record
	batches      map[int64]int64       // probe record offset → the first offset of its batch
	provisional  map[docKey]bool       // documents this run stored or found provisional (state.Doc.Provisional), so that a final reads only these
	wentOut      map[docKey]*unsettled // copies stored in other shards answered here before their originals settled, until their own finals
	copies       map[uint64]int        // wentOut's documents by content hash: whose finals this shard reads
	abandonAfter time.Duration         // see add
}

// unsettled is a document awaiting its final.
type unsettled struct {
	key     docKey
	batch   int64     // the first offset of the batch it was first applied from in this run
	at      time.Time // the timestamp of the record it was first applied from
	again   []int64   // the first offsets of the batches that appended it again (its input record replayed)
	pos     uint64    // its position in the log: what later decisions' OfPos name
	offset  int64     // of the record it was first applied from in this run
	cluster uint64    // the cluster this shard holds for it
	since   time.Time // when it was applied, for settleExpiry
	done    bool      // settled: to be dropped from order
	copy    bool      // an entry of wentOut, not of pending: pos is its original's
}

// heldAnswer is an answer that waits for the final of the document it matched.
type heldAnswer struct {
	offset int64 // of the probe's record
	batch  int64 // the first offset of the probe's batch
	reply  int
	a      answer
	on     uint64 // the matched document's position
}

func newSettling(abandonAfter time.Duration) *settling {
	return &settling{abandonAfter: abandonAfter, pending: map[docKey]*unsettled{}, byPos: map[uint64]*unsettled{},
		held: map[uint64][]heldAnswer{}, firsts: map[string]int64{}, batches: map[int64]int64{},
		provisional: map[docKey]bool{}, wentOut: map[docKey]*unsettled{}, copies: map[uint64]int{}}
}

// batchAt returns the first offset of the batch whose probe record with key
// is at offset.
func (s *settling) batchAt(key string, offset int64) int64 {
	first, ok := s.firsts[key]
	if !ok {
		first, s.firsts[key] = offset, offset
	}
	s.batches[offset] = first
	return first
}

// add records a document this shard decided that also reached other
// shards, from a probe record of the batch that began at offset batch,
// appended at time at (the record's timestamp). A document appended again
// (its input record replayed) keeps the batch it was first applied from,
// and the answers held on it wait for a final from either batch — unless
// the replay came abandonAfter or more after the first append: then its
// first batch is taken as abandoned, and the answers held on it from
// batches before the replaying one are released with the cluster held
// here (the replaying batch may wait for them) and returned.
func (s *settling) add(key docKey, batch int64, at time.Time, pos uint64, offset int64, cluster uint64, now time.Time) []heldAnswer {
	if u := s.pending[key]; u != nil {
		if batch <= u.batch || slices.Contains(u.again, batch) {
			return nil
		}
		u.again = append(u.again, batch)
		if at.Sub(u.at) < s.abandonAfter {
			return nil
		}
		var out, kept []heldAnswer
		for _, h := range s.held[u.pos] {
			if h.batch < batch {
				out = append(out, h)
			} else {
				kept = append(kept, h)
			}
		}
		s.setHeld(u.pos, kept)
		return s.stamp(out, u.cluster)
	}
	u := &unsettled{key: key, batch: batch, at: at, pos: pos, offset: offset, cluster: cluster, since: now}
	s.pending[key], s.byPos[pos] = u, u
	s.order = append(s.order, u)
	return nil
}

// settledBefore reports whether a document decided from the probe record at
// offset was settled here before: stored from an earlier record (a replayed
// decision keeps its first position) and no longer awaiting its final. Its
// input record was read again — by a front that took the partition over
// while the first one finished it, or in a resend that crossed its final —
// and it must not wait for a final again: the final would come only from a
// replaying front that finishes its batch, and if that front dies and the
// partition's next owner starts past the record, from none; the copies
// held on it would wait settleExpiry. A run that began after the earlier
// record had it settled too: commit positions never pass a document still
// unsettled (commitBound).
func (s *settling) settledBefore(dec *stream.Decision, key docKey, offset int64) bool {
	return dec.Replayed && int64(dec.Pos>>posShift) < offset && s.pending[key] == nil
}

// holds reports whether an answer from a probe of the batch that began at
// offset batch must wait: it matched a document still unsettled here, of
// an earlier batch, and not appended again by this one (a replayed batch
// settles its originals and their copies together, as any batch does).
func (s *settling) holds(dec *stream.Decision, batch int64) bool {
	u := s.byPos[dec.OfPos]
	return dec.OfPos != 0 && u != nil && u.batch < batch && !slices.Contains(u.again, batch)
}

// sameBatch reports whether an answer from a probe of the batch that began
// at offset batch matched a document of that batch, or one still unsettled
// here that the batch appended again: the front joining the batch gives it
// its original's joined cluster (sameBatchClusters), so its cluster here is
// provisional. An original unsettled from a batch that began after this
// one (their records interleaved) is neither: the answer goes out at once
// with the cluster held here, as a front takes a provisional answer only
// for an original of its own batch, and waiting for the later batch could
// make two batches wait for each other.
func (s *settling) sameBatch(dec *stream.Decision, batch int64) bool {
	if dec.OfPos == 0 {
		return false
	}
	if first, ok := s.batches[int64(dec.OfPos>>posShift)]; ok && first == batch {
		return true // the original came in this batch, whether or not it waits for a final
	}
	u := s.byPos[dec.OfPos]
	return u != nil && slices.Contains(u.again, batch)
}

// resent handles a probe sent again after index.answer_timeout for the
// attempt-th time and reports whether this shard keeps holding the
// document's answer (the probe itself is then not answered). At the first
// resend it does: at a fleet's start no shard answers for a while and every
// front sends again at once, and the originals' finals follow within a
// batch's time. From the second on it forgets what it holds, the probe
// being answered now with the cluster held here: the wait may be the
// front's own doing — the original's first front died, and its replay is
// queued behind the very batch that waits. It is rare, so it looks through
// all held answers.
func (s *settling) resent(source string, hash uint64, attempt int) (holding bool) {
	for on, hs := range s.held {
		kept := slices.DeleteFunc(slices.Clone(hs), func(h heldAnswer) bool { return h.a.source == source && h.a.hash == hash })
		if len(kept) == len(hs) {
			continue
		}
		if attempt < 2 {
			return true
		}
		s.setHeld(on, kept)
	}
	return false
}

// view sets the cluster this shard holds for a document still unsettled
// here whose own held answer has just gone out with cluster.
func (s *settling) view(k docKey, cluster uint64) {
	if u := s.pending[k]; u != nil {
		u.cluster = cluster
	}
}

// hold keeps an answer back until the document at position on is settled.
func (s *settling) hold(h heldAnswer) {
	s.held[h.on] = append(s.held[h.on], h)
	s.nheld++
}

// setHeld replaces the answers held on position on.
func (s *settling) setHeld(on uint64, hs []heldAnswer) {
	s.nheld += len(hs) - len(s.held[on])
	if len(hs) == 0 {
		delete(s.held, on)
		return
	}
	s.held[on] = hs
}

// settle takes a final: the document's cluster is the joined one, and the
// answers held on it are released with that cluster, in log order. It
// returns them; ok is false if the document was not unsettled here.
func (s *settling) settle(f *final) (released []heldAnswer, ok bool) {
	u := s.pending[docKey{f.source, f.hash}]
	if u == nil {
		return nil, false
	}
	cluster := u.cluster
	if f.changed {
		cluster = f.dec.Cluster
	}
	return s.release(u, cluster), true
}

// early notes a copy stored in another shard whose answer goes out from
// here, with cluster, while its original at position on still awaits its
// final: the cluster is this shard's view, which the original's final may
// change. Until the copy's own final has come through the log (its home
// stores then the decision its front emitted, and a replay of it gets that
// decision from its home), a replay of the copy must get the same cluster
// here, not the one its original's final brings (wentOutWith). The entry
// bounds the commit position (commitBound), so a shard rebuilt from the log
// notes it again.
func (s *settling) early(key docKey, on uint64, offset, batch int64, cluster uint64, now time.Time) {
	if s.wentOut[key] != nil {
		return // the first answer to go out
	}
	if o := s.byPos[on]; o != nil { // a rebuild must apply the original's first append too
		offset, batch = min(offset, o.offset), min(batch, o.batch)
	}
	u := &unsettled{key: key, batch: batch, pos: on, offset: offset, cluster: cluster, since: now, copy: true}
	s.wentOut[key] = u
	s.copies[key.hash]++
	s.order = append(s.order, u)
}

// wentOutWith returns the cluster a copy's answer went out with from here
// before its original settled, if its own final has not come since and the
// decision names the same original.
func (s *settling) wentOutWith(key docKey, dec *stream.Decision) (uint64, bool) {
	u := s.wentOut[key]
	if u == nil || dec.OfPos != u.pos || !dec.Verdict.Duplicate() {
		return 0, false
	}
	return u.cluster, true
}

// copySettled forgets a copy's early answer once its own final has come.
func (s *settling) copySettled(key docKey) {
	if u := s.wentOut[key]; u != nil {
		u.done = true
		delete(s.wentOut, key)
		if s.copies[key.hash]--; s.copies[key.hash] == 0 {
			delete(s.copies, key.hash)
		}
	}
}

// expire settles the documents that have waited longer than settleExpiry
// with the clusters held here, and returns the answers released.
func (s *settling) expire(now time.Time) (released []heldAnswer, expired int) {
	for len(s.order) > 0 {
		u := s.order[0]
		if !u.done && now.Sub(u.since) <= settleExpiry {
			break
		}
		if !u.done && u.copy {
			s.copySettled(u.key)
		} else if !u.done {
			released = append(released, s.release(u, u.cluster)...)
			expired++
		}
		s.order[0], s.order = nil, s.order[1:]
	}
	return released, expired
}

// release forgets u and returns the answers held on it, their cluster set
// to u's settled one.
func (s *settling) release(u *unsettled, cluster uint64) []heldAnswer {
	delete(s.pending, u.key)
	delete(s.byPos, u.pos)
	u.done = true
	hs := s.held[u.pos]
	s.setHeld(u.pos, nil)
	return s.stamp(hs, cluster)
}

// stamp sets the cluster of released answers.
func (s *settling) stamp(hs []heldAnswer, cluster uint64) []heldAnswer {
	for i := range hs {
		hs[i].a.dec.Cluster = cluster
	}
	return hs
}

// commitBound is the least log offset a restart must read from to rebuild
// this state, next when nothing is unsettled or held. It forgets the
// batches that began before that offset: none is waited for any more.
func (s *settling) commitBound(next int64) int64 {
	for len(s.order) > 0 && s.order[0].done {
		s.order[0], s.order = nil, s.order[1:]
	}
	if len(s.order) > 0 { // the earliest applied; an answer held waits for an earlier one
		u := s.order[0]
		next = min(next, u.offset, u.batch)
	}
	for _, u := range s.wentOut { // noted when answered, after later documents were applied
		next = min(next, u.offset, u.batch)
	}
	if len(s.firsts) > maxBatchesKept {
		maps.DeleteFunc(s.firsts, func(_ string, first int64) bool { return first < next })
	}
	if len(s.batches) > maxBatchesKept {
		maps.DeleteFunc(s.batches, func(_, first int64) bool { return first < next })
	}
	return next
}

// maxBatchesKept is how many batch keys a run keeps before it forgets those
// no longer waited for. A batch key seen again after it was forgotten (a
// late resend) counts as a batch that began then, which only makes its
// answers wait less.
const maxBatchesKept = 4096
