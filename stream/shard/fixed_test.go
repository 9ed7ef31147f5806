package shard

import (
	"fmt"
	"slices"
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
	s := NewServer(cfg, Topology{Shards: shards, InputPartitions: 1}, ServerOptions{Method: m, State: state.Options{Dir: t.TempDir()}})
	r := &shardRun{s: s, id: 0, label: "0", settle: newSettling(cfg.AnswerTimeout)}
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
	run := r.appendProbes(nil, &m, probes)
	out := newAnswerPacker()
	if _, err := r.decide(run, offset+1, out); err != nil {
		t.Fatal(err)
	}
	return answersIn(t, out, string(m.Key), docs)
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
