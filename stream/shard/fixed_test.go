package shard

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// TestReplayKeepsAFixedCluster drives one shard of two through the log of a
// crash: an original A and its copy P come in one batch whose front dies
// before emitting; P is appended again and held on A; A's replay comes
// index.answer_timeout later, which releases P with the cluster the shard
// holds for A (its own view); then A's final brings another joined cluster.
// P's answer has gone out, so a later replay of P must get that same
// cluster, at once — and the answer
// given inside A's own batch must say it is provisional, so that the front
// corrects only that one.
func TestReplayKeepsAFixedCluster(t *testing.T) {
	m := streamtest.MinHash(t, lsh.Params{})
	cfg := Config{AnswerTimeout: 10 * time.Second, MemtableBytes: 4 << 20}
	r := openRun(t, cfg, m)

	var sc lsh.Scratch
	sketch, keys := m.Sketch(&sc, []byte("the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door"), nil, nil)
	doc := func(id, source string) state.Doc {
		return state.Doc{ID: id, Source: source, ContentHash: homedAt(0, 2), Sketch: sketch, Bands: keys}
	}
	a, p := doc("a", "pages/0/1"), doc("p", "pages/0/2")
	t0 := time.Unix(1000, 0)
	decide := func(offset int64, at time.Time, docs ...state.Doc) map[string]answer {
		t.Helper()
		return decideRecord(t, r, offset, at, docs...)
	}

	first := decide(10, t0, a, p) // A's first batch; its front dies unemitted
	if got, ok := first[p.Source]; !ok || !got.provisional || got.dec.Verdict != stream.ExactDuplicate {
		t.Fatalf("the copy in its original's batch: %+v, want an exact duplicate answered provisional", got)
	}
	if got := decide(20, t0.Add(time.Second), p); len(got) != 0 {
		t.Fatalf("the copy appended again is answered before its original settles: %+v", got)
	}
	// A's replay, index.answer_timeout after its first append: P goes out
	// with the cluster this shard holds for A.
	released := decide(30, t0.Add(cfg.AnswerTimeout+time.Second), a)
	got, ok := released[p.Source]
	if !ok || got.provisional {
		t.Fatalf("A's late replay did not release the copy for good: %+v", released)
	}
	out := got.dec.Cluster
	joined := out + 1 // the front joined another cluster for A
	rel := newAnswerPacker()
	if _, err := r.applyFinal(&final{source: a.Source, hash: a.ContentHash, changed: true,
		dec: stream.Decision{Verdict: stream.Unique, Cluster: joined}}, rel); err != nil {
		t.Fatal(err)
	}
	// A and P replayed once more, in two batches: P's answer is the one
	// that went out, at once.
	decide(40, t0.Add(2*cfg.AnswerTimeout), a)
	again, ok := decide(50, t0.Add(2*cfg.AnswerTimeout), p)[p.Source]
	if !ok {
		t.Fatal("a replay of a copy whose answer went out is held again")
	}
	if again.dec.Cluster != out || !again.dec.Replayed || again.provisional {
		t.Errorf("replayed copy answered %+v, want the cluster it went out with, %d, fixed", again.dec, out)
	}
	rel = newAnswerPacker()
	if _, err := r.applyFinal(&final{source: a.Source, hash: a.ContentHash}, rel); err != nil {
		t.Fatal(err)
	}
	if stored, _, _ := r.store.Replayed(p.Source, p.ContentHash); stored.Cluster != out || stored.Provisional {
		t.Errorf("the copy's stored cluster became %d (provisional %v), want %d fixed", stored.Cluster, stored.Provisional, out)
	}
}

// TestReplayAfterFinalWaitsForNone: a document appended again after its
// final has settled it (another front took its partition over while the
// first finished it) does not wait for a final again: the front replaying
// it may die, and the partition's next owner start past it, so that none
// comes. A later copy is answered at once, with the original's cluster.
func TestReplayAfterFinalWaitsForNone(t *testing.T) {
	m := streamtest.MinHash(t, lsh.Params{})
	r := openRun(t, Config{AnswerTimeout: 10 * time.Second, MemtableBytes: 4 << 20}, m)

	var sc lsh.Scratch
	sketch, keys := m.Sketch(&sc, []byte("a ferry leaves the harbour at dawn when the wind has dropped and the pilot is on board"), nil, nil)
	a := state.Doc{ID: "a", Source: "pages/0/1", ContentHash: homedAt(0, 2), Sketch: sketch, Bands: keys}
	q := a
	q.ID, q.Source = "q", "pages/0/9"
	decide := func(offset int64, d state.Doc) map[string]answer {
		t.Helper()
		return decideRecord(t, r, offset, time.Unix(1000+offset, 0), d)
	}
	cluster := decide(10, a)[a.Source].dec.Cluster
	if _, err := r.applyFinal(&final{source: a.Source, hash: a.ContentHash}, newAnswerPacker()); err != nil {
		t.Fatal(err)
	}
	if got, ok := decide(20, a)[a.Source]; !ok || !got.dec.Replayed || got.dec.Cluster != cluster {
		t.Fatalf("A appended again: %+v, want its first answer repeated", got)
	}
	got, ok := decide(30, q)[q.Source]
	if !ok {
		t.Fatal("a copy of a settled document appended again is held, waiting for a final none may send")
	}
	if got.dec.Verdict != stream.ExactDuplicate || got.dec.Cluster != cluster || got.provisional {
		t.Errorf("the copy answered %+v, want an exact duplicate in cluster %d, fixed", got.dec, cluster)
	}
	if r.settle.pending[docKey{a.Source, a.ContentHash}] != nil {
		t.Error("A awaits a final again")
	}
}

// homedAt returns a content hash whose documents shard stores, of shards.
func homedAt(shard, shards int) uint64 {
	h := uint64(1)
	for home(h, shards) != shard {
		h++
	}
	return h
}

// openRun opens shard 0 of two on a store of its own, closed with the test.
func openRun(t testing.TB, cfg Config, m lsh.Method) *shardRun {
	t.Helper()
	return openRunOf(t, cfg, m, 2)
}

// openRunOf is openRun for shard 0 of shards.
func openRunOf(t testing.TB, cfg Config, m lsh.Method, shards int) *shardRun {
	t.Helper()
	return openRunAt(t, cfg, m, 0, shards)
}

// openRunAt opens shard id of shards on a store of its own.
func openRunAt(t testing.TB, cfg Config, m lsh.Method, id, shards int) *shardRun {
	t.Helper()
	s := NewServer(cfg, Topology{Shards: shards, InputPartitions: 1}, ServerOptions{Method: m, State: state.Options{Dir: t.TempDir()}})
	r := &shardRun{s: s, id: id, label: strconv.Itoa(id), settle: newSettling(cfg.AnswerTimeout)}
	if _, err := r.open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.store.Close() })
	return r
}

// decideRecord has r apply one probe record of the log at offset, appended
// at time at, a front batch of its own whose probes are docs, as batch
// does, and returns the answers it gave, by source.
func decideRecord(t *testing.T, r *shardRun, offset int64, at time.Time, docs ...state.Doc) map[string]answer {
	t.Helper()
	probes := make([]probe, len(docs))
	for i, d := range docs {
		probes[i] = probe{index: i, doc: d}
		probes[i].doc.Bands = slices.Clip(d.Bands) // indexKeys appends to it
	}
	m := kafka.Message{Offset: offset, Key: []byte(fmt.Sprintf("batch at %d", offset)), Time: at}
	return answersIn(t, decideProbes(t, r, &m, probes), string(m.Key), docs)
}

// decideProbes has r decide the probes of the log record m, as batch
// does, and returns the answers it packed.
func decideProbes(t *testing.T, r *shardRun, m *kafka.Message, probes []probe) *answerPacker {
	t.Helper()
	placeProbes(probes, m.Offset)
	out := newAnswerPacker()
	if _, err := r.decide(r.appendProbes(nil, m, probes), m.Offset+1, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// answersIn decodes the answers packed in out, by source: of docs, the
// front batch key's, for the answers that a shard has nothing for them.
func answersIn(t *testing.T, out *answerPacker, key string, docs []state.Doc) map[string]answer {
	t.Helper()
	got := make(map[string]answer)
	for _, msg := range out.messages("answers") {
		as, ns, err := decodeAnswers(msg.Value)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			got[a.source] = a
		}
		for _, n := range ns {
			if n.key != key {
				t.Fatalf("nothing for batch %q, want %q", n.key, key)
			}
			for _, i := range n.indexes {
				d := &docs[i]
				got[d.Source] = answer{shard: n.shard, source: d.Source, hash: d.ContentHash, dec: stream.Decision{Verdict: stream.Unique}}
			}
		}
	}
	return got
}

// TestReadAgainFindsNoLaterDocument: a shard whose store is ahead of the
// group's committed offset (killed after storing, before committing) reads
// the log again from that offset, deciding anew the documents stored by
// other shards; one must not match a document the store holds from later
// in the log, which its first decision could not see.
func TestReadAgainFindsNoLaterDocument(t *testing.T) {
	m := streamtest.MinHash(t, lsh.Params{})
	r := openRun(t, Config{AnswerTimeout: 10 * time.Second, MemtableBytes: 4 << 20}, m)

	var sc lsh.Scratch
	sketch, keys := m.Sketch(&sc, []byte("the night train to the coast stops at every village and the guard knows every passenger by name"), nil, nil)
	later := state.Doc{ID: "later", Source: "pages/0/5", ContentHash: homedAt(0, 2), Sketch: sketch, Bands: keys}
	other := state.Doc{ID: "other", Source: "pages/0/1", ContentHash: homedAt(1, 2), Sketch: sketch, Bands: keys}
	decide := func(offset int64, d state.Doc) answer {
		t.Helper()
		return decideRecord(t, r, offset, time.Unix(1000+offset, 0), d)[d.Source]
	}
	if got := decide(10, other); got.dec.Verdict != stream.Unique {
		t.Fatalf("first read: %+v, want unique (nothing stored yet)", got.dec)
	}
	decide(20, later) // stored here: its home
	if got := decide(10, other); got.dec.Verdict != stream.Unique || got.dec.Of != "" {
		t.Errorf("read again at its place in the log: %+v, want unique as the first time, not a copy of a later document", got.dec)
	}
}

// TestOneShardAnswersForGood: with one shard no final follows a batch (no
// document reaches several shards), so a copy of a document of its own
// batch is answered for good: the shard's answer is the joined one. Marked
// provisional, it would stay so in the store, and in the shard's memory,
// for ever.
func TestOneShardAnswersForGood(t *testing.T) {
	m := streamtest.MinHash(t, lsh.Params{})
	r := openRunOf(t, Config{AnswerTimeout: 10 * time.Second, MemtableBytes: 4 << 20}, m, 1)
	var sc lsh.Scratch
	sketch, keys := m.Sketch(&sc, []byte("the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door"), nil, nil)
	a := state.Doc{ID: "a", Source: "pages/0/1", ContentHash: 7, Sketch: sketch, Bands: keys}
	p := a
	p.ID, p.Source = "p", "pages/0/2"
	got := decideRecord(t, r, 10, time.Unix(1000, 0), a, p)[p.Source]
	if got.dec.Verdict != stream.ExactDuplicate || got.provisional {
		t.Errorf("the copy in its original's batch: %+v, want an exact duplicate answered for good", got)
	}
	if len(r.settle.provisional) != 0 {
		t.Errorf("the shard keeps %d documents provisional, want none", len(r.settle.provisional))
	}
	if stored, ok, err := r.store.Replayed(p.Source, p.ContentHash); err != nil || !ok || stored.Provisional {
		t.Errorf("the copy's stored record: found %v, provisional %v (%v); want it stored for good", ok, stored.Provisional, err)
	}
}

// TestCopyReplayedBeforeItsFinalKeepsItsCluster: a copy D of an original O,
// stored in another shard than O, goes out with the cluster O's shard held
// when O's late replay released it (index.answer_timeout after O's first
// append); O's final then brings another joined cluster. D's input record
// is appended again (a second front took its partition over) before D's
// first front appended D's final: D's home answers the replay with its own
// view (D unique there), so the join takes O's shard's match — with O's
// cluster as it is now — and the replay would come out in another cluster:
// O's shard answers it with the cluster the copy went out with, until the
// copy's own final has come.
func TestCopyReplayedBeforeItsFinalKeepsItsCluster(t *testing.T) {
	m := streamtest.MinHash(t, lsh.Params{})
	cfg := Config{AnswerTimeout: 10 * time.Second, MemtableBytes: 4 << 20}
	r0, r1 := openRunAt(t, cfg, m, 0, 2), openRunAt(t, cfg, m, 1, 2)
	var sc lsh.Scratch
	sketch, keys := m.Sketch(&sc, []byte("the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door"), nil, nil)
	o := state.Doc{ID: "o", Source: "pages/0/1", ContentHash: homedAt(0, 2), Sketch: sketch, Bands: keys}
	d := state.Doc{ID: "d", Source: "pages/0/2", ContentHash: homedAt(1, 2), Sketch: sketch, Bands: keys}
	t0 := time.Unix(1000, 0)
	both := func(offset int64, at time.Time, docs ...state.Doc) (map[string]answer, map[string]answer) {
		t.Helper()
		return decideRecord(t, r0, offset, at, docs...), decideRecord(t, r1, offset, at, docs...)
	}
	finalBoth := func(f final) (map[string]answer, map[string]answer) {
		t.Helper()
		o0, o1 := newAnswerPacker(), newAnswerPacker()
		if _, err := r0.applyFinal(&f, o0); err != nil {
			t.Fatal(err)
		}
		if _, err := r1.applyFinal(&f, o1); err != nil {
			t.Fatal(err)
		}
		return answersIn(t, o0, "", nil), answersIn(t, o1, "", nil)
	}
	joinOf := func(doc state.Doc, a0, a1 answer) stream.Decision {
		return join(&doc, []stream.Decision{a0.dec, a1.dec}, home(doc.ContentHash, 2))
	}

	// B1 at 10: O. Its front dies before emitting.
	a0, _ := both(10, t0, o)
	co := a0[o.Source].dec.Cluster
	// B2 at 20: D; O's shard holds D on O.
	b0, b1 := both(20, t0.Add(time.Second), d)
	if _, ok := b0[d.Source]; ok {
		t.Fatalf("D not held on O: %+v", b0)
	}
	dHome := b1[d.Source]
	// B3 at 30: O replayed 10 s later: D released with co.
	c0, _ := both(30, t0.Add(cfg.AnswerTimeout+time.Second), o)
	dOther, ok := c0[d.Source]
	if !ok {
		t.Fatalf("D not released by O's late replay: %+v", c0)
	}
	first := joinOf(d, dOther, dHome)
	t.Logf("D first: %+v", first)
	// B3's front joins O into another cluster; its final.
	cj := co + 1
	finalBoth(final{source: o.Source, hash: o.ContentHash, changed: true, dec: stream.Decision{Verdict: stream.Unique, Cluster: cj}})
	// B5 at 50: D appended again by a second front, before D's own final.
	e0, e1 := both(50, t0.Add(2*cfg.AnswerTimeout), d)
	again := joinOf(d, e0[d.Source], e1[d.Source])
	t.Logf("D replayed: %+v (home %+v, other %+v)", again, e1[d.Source].dec, e0[d.Source].dec)
	if !r0.reads(d.ContentHash) {
		t.Error("O's shard would not read D's final, which ends what it remembers of D")
	}
	if got := r0.settle.commitBound(1000); got > 20 {
		t.Errorf("O's shard may commit %d, past D's probe (20) while D's early answer is remembered", got)
	}
	// D's first front's final.
	fd := final{source: d.Source, hash: d.ContentHash, dec: first}
	fd.dec.Replayed, fd.dec.Pos = false, 0
	fd.changed = !sameDecision(&dHome.dec, &fd.dec)
	finalBoth(fd)
	if r0.reads(d.ContentHash) {
		t.Error("O's shard reads D's finals after D's final has come")
	}
	if again.Cluster != first.Cluster || again.Of != first.Of || again.Verdict != first.Verdict {
		t.Errorf("replay of D: verdict %v of %q cluster %d; first output: verdict %v of %q cluster %d",
			again.Verdict, again.Of, again.Cluster, first.Verdict, first.Of, first.Cluster)
	}
	// After D's final its home answers a replay with what went out.
	g0, g1 := both(60, t0.Add(3*cfg.AnswerTimeout), d)
	if later := joinOf(d, g0[d.Source], g1[d.Source]); later.Cluster != first.Cluster {
		t.Errorf("replay after D's final: cluster %d, first output %d", later.Cluster, first.Cluster)
	}
}

// TestInterleavedBatchIsNotLeftWaiting: a front batch whose records
// interleave with another's (a batch of several records, another front
// appending between them) holds a copy of that other batch's original,
// unsettled here. Its answer goes out at once, for good: a provisional one
// is taken by a front only for an original of its own batch, so the copy
// would wait for the later batch's final, resend after resend.
func TestInterleavedBatchIsNotLeftWaiting(t *testing.T) {
	m := streamtest.MinHash(t, lsh.Params{})
	r := openRunAt(t, Config{AnswerTimeout: 10 * time.Second, MemtableBytes: 4 << 20}, m, 0, 2)
	var sc lsh.Scratch
	sketch, keys := m.Sketch(&sc, []byte("a ferry leaves the harbour at dawn when the wind has dropped and the pilot is on board"), nil, nil)
	x := state.Doc{ID: "x", Source: "pages/1/1", ContentHash: homedAt(1, 2)}
	o := state.Doc{ID: "o", Source: "pages/0/1", ContentHash: homedAt(0, 2), Sketch: sketch, Bands: keys}
	d := state.Doc{ID: "d", Source: "pages/1/2", ContentHash: homedAt(1, 2), Sketch: sketch, Bands: keys}
	record := func(offset int64, key string, index int, doc state.Doc) answer {
		t.Helper()
		msg := kafka.Message{Offset: offset, Key: []byte(key), Time: time.Unix(1000, 0)}
		doc.Bands = slices.Clip(doc.Bands) // indexKeys appends to it
		out := decideProbes(t, r, &msg, []probe{{index: index, doc: doc}})
		docs := make([]state.Doc, index+1)
		docs[index] = doc
		return answersIn(t, out, key, docs)[doc.Source]
	}
	record(10, "batch-B1", 0, x) // B's first record
	record(20, "batch-O1", 0, o) // another front's batch
	got := record(30, "batch-B1", 1, d)
	if got.dec.Of != "o" || got.provisional {
		t.Errorf("the copy in B's second record: %+v, want a copy of o answered for good", got)
	}
}
