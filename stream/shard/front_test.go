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

// TestIdleAnswerReadersStop checks that a front stops the answer reader of a
// partition it has not asked for in answerReaderIdle, but never while a
// document of that partition is in flight, and starts it again when asked.
func TestIdleAnswerReadersStop(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages"}, Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ic := Config{Shards: 2}
	ic.EnsureDefaults()
	top, err := EnsureTopics(ctx, &kafka.Client{Addr: kafka.TCP(b.Addr())}, "pages", "g", ic, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kc stream.KafkaConfig
	kc.Brokers, kc.Group = []string{b.Addr()}, "g"
	f := NewFront(ic, top, FrontOptions{Kafka: kc, Logger: zaptest.NewLogger(t)})
	defer f.Close()
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
