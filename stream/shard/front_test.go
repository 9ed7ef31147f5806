package shard

import (
	"context"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// startBroker starts an embedded broker with one topic, closed when the
// test ends, and returns it with a context of a minute for the test.
func startBroker(t *testing.T, topic string, partitions int) (*embedded.Broker, context.Context) {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{topic}, Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return b, ctx
}

// startFront starts a broker with a 2-partition input topic "pages" and
// the topics of group "g" with shards shards, and a front on them; both
// stop, and ctx (a minute) ends, with the test.
func startFront(t *testing.T, shards int) (context.Context, *Front, stream.KafkaConfig) {
	t.Helper()
	b, ctx := startBroker(t, "pages", 2)
	ic := Config{Shards: shards}
	ic.EnsureDefaults()
	top, err := EnsureTopics(ctx, &kafka.Client{Addr: kafka.TCP(b.Addr())}, "pages", "g", ic, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kc stream.KafkaConfig
	kc.Brokers, kc.Group = []string{b.Addr()}, "g"
	f := NewFront(ic, top, FrontOptions{Kafka: kc, Logger: zaptest.NewLogger(t)})
	t.Cleanup(func() { f.Close() })
	return ctx, f, kc
}

// TestIdleAnswerReadersStop checks that a front stops the answer reader of a
// partition it has not asked for in answerReaderIdle, but never while a
// document of that partition is in flight, and starts it again when asked.
func TestIdleAnswerReadersStop(t *testing.T) {
	ctx, f, _ := startFront(t, 2)
	running := func(p int) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		_, ok := f.readers[p]
		return ok
	}
	for p := range 2 {
		if err := f.readAnswers(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// A document of partition 0 in flight keeps its reader past the idle time.
	doc := state.Doc{ID: "a", Source: "pages/0/7", ContentHash: 1}
	a := &asked{f: f, docs: []state.Doc{doc}, done: make(chan struct{})}
	a.waits = []*waiting{{doc: &a.docs[0], reply: 0, batch: a}}
	f.register(a)
	later := time.Now().Add(answerReaderIdle)
	f.stopIdleReaders(later)
	if !running(0) || running(1) {
		t.Fatalf("after the idle time: reader 0 running %v (a document in flight), reader 1 running %v (idle); want true, false", running(0), running(1))
	}
	f.forget(a)
	f.stopIdleReaders(time.Now()) // asked for just now: kept
	if !running(0) {
		t.Fatal("reader 0 stopped before its idle time")
	}
	f.stopIdleReaders(later)
	if running(0) {
		t.Fatal("reader 0 still running once idle")
	}
	if err := f.readAnswers(ctx, 1); err != nil || !running(1) {
		t.Fatalf("asking for partition 1 again: %v, reader running %v", err, running(1))
	}
}

// TestFrontTakesNothingForABatch: a front's probes carry their indexes in
// its batch, and a shard's one entry for the documents of a batch it
// neither stores nor matched answers each of them, over a real broker. A
// document stays in flight until its home answers it: such an entry from
// its home is not an answer.
func TestFrontTakesNothingForABatch(t *testing.T) {
	const shards = 4
	ctx, f, kc := startFront(t, shards)
	docs := []state.Doc{
		{ID: "a", Source: "pages/0/1", ContentHash: homedAt(0, 4)},
		{ID: "b", Source: "pages/1/1", ContentHash: homedAt(1, 4)},
		{ID: "c", Source: "pages/0/2", ContentHash: homedAt(3, 4)},
	}
	a, err := f.Ask(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	seq := kafka.NewReader(kafka.ReaderConfig{Brokers: kc.Brokers, Topic: SequenceTopic("g"), Partition: 0, MaxWait: 100 * time.Millisecond})
	defer seq.Close()
	m, err := seq.ReadMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := decodeLogRecord(m.Value)
	if err != nil || len(rec.probes) != len(docs) {
		t.Fatalf("the batch's probe record: %d probes, %v", len(rec.probes), err)
	}
	key, _ := batchKey(m.Key)
	w := newPartitionWriter(kc, stream.Security{})
	defer w.Close()
	write := func(out *answerPacker) {
		t.Helper()
		if err := w.WriteMessages(ctx, out.messages(AnswersTopic("g"))...); err != nil {
			t.Fatal(err)
		}
	}
	// First every shard's entry for the documents it does not store, and
	// one from b's home naming b; then the homes' answers, b's a match,
	// a's last.
	none := newAnswerPacker()
	for s := range shards {
		for _, p := range rec.probes {
			if home(p.doc.ContentHash, shards) != s || p.doc.ID == "b" {
				none.nothingFor(p.reply, s, key, p.index)
			}
		}
	}
	write(none)
	homes := newAnswerPacker()
	homes.one(1, &answer{shard: 1, source: docs[1].Source, hash: docs[1].ContentHash,
		dec: stream.Decision{Verdict: stream.NearDuplicate, Of: "x", OfPos: 1, Cluster: 9, Pos: 5 << posShift}})
	homes.one(0, &answer{shard: 3, source: docs[2].Source, hash: docs[2].ContentHash, dec: stream.Decision{Verdict: stream.Unique}})
	write(homes)
	select {
	case <-a.(*asked).done:
		t.Fatal("the batch was answered before a's home answered it")
	case <-time.After(2 * time.Second):
	}
	last := newAnswerPacker()
	last.one(0, &answer{shard: 0, source: docs[0].Source, hash: docs[0].ContentHash, dec: stream.Decision{Verdict: stream.Unique}})
	write(last)
	dec, err := a.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []stream.Decision{{Verdict: stream.Unique, Cluster: stream.ClusterOf(docs[0].Source)},
		{Verdict: stream.NearDuplicate, Of: "x", OfPos: 1, Cluster: 9, Pos: 5 << posShift},
		{Verdict: stream.Unique, Cluster: stream.ClusterOf(docs[2].Source)}}
	for i := range dec {
		if dec[i] != want[i] {
			t.Errorf("%s: %+v, want %+v", docs[i].ID, dec[i], want[i])
		}
	}
}
