package prepare

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
)

// TestBatchPreparesAsAdded adds generated pages (a few of them invalid) to a
// Batch one by one, some while its workers are busy and some after a pause
// in which they sit idle, as the pipeline's fetch does, and checks that Wait
// returns every record, in order, prepared exactly as Prepare prepares it
// alone: on 1, 2 and 4 workers, and on one set of workers for batch after
// batch, as the pipeline keeps them for a run; PrepareAll likewise.
func TestBatchPreparesAsAdded(t *testing.T) {
	p := defaultPreparer(t)
	msgs := generatedRecords(11, 0.3, 120)
	for i := 5; i < len(msgs); i += 17 {
		msgs[i].Value = []byte(`{"id": "empty", "html": "<p> </p>"}`) // no words: an invalid item
	}
	want := make([]Item, len(msgs))
	for i := range msgs {
		want[i] = p.Prepare(&msgs[i], new(Scratch))
	}
	var pool sync.Pool
	pool.New = func() any { return new(Scratch) }
	// check compares a batch's items (and records, unless nil: PrepareAll
	// returns the items alone) with want.
	check := func(name string, gotMsgs []kafka.Message, got []Item) {
		t.Helper()
		if len(got) != len(want) || (gotMsgs != nil && len(gotMsgs) != len(msgs)) {
			t.Fatalf("%s: %d items, %d records, want %d", name, len(got), len(gotMsgs), len(want))
		}
		invalid := 0
		for i := range got {
			if got[i].Msg.Offset != msgs[i].Offset || (gotMsgs != nil && gotMsgs[i].Offset != msgs[i].Offset) {
				t.Fatalf("%s: item %d is record %d", name, i, got[i].Msg.Offset)
			}
			if gotMsgs != nil && got[i].Msg != &gotMsgs[i] { // the pipeline routes and commits b.msgs, logs items' Msg
				t.Fatalf("%s: item %d refers to a record other than the batch's", name, i)
			}
			if (got[i].Err == nil) != (want[i].Err == nil) {
				t.Fatalf("%s: item %d: error %v, want %v", name, i, got[i].Err, want[i].Err)
			}
			if got[i].Err != nil {
				invalid++
				continue
			}
			if got[i].Hash != want[i].Hash || !bytes.Equal(got[i].Sketch, want[i].Sketch) || !reflect.DeepEqual(got[i].Keys, want[i].Keys) {
				t.Fatalf("%s: item %d prepared differently from Prepare alone", name, i)
			}
		}
		if invalid != 7 {
			t.Fatalf("%s: %d invalid items, want 7", name, invalid)
		}
	}

	for _, n := range []int{1, 2, 4} {
		w := p.StartWorkers(n, len(msgs), &pool)
		for round := range 2 {
			b := w.Batch(len(msgs))
			for i, m := range msgs {
				if n := b.Add(m); n != i+1 {
					t.Fatalf("Add returned %d after %d records", n, i+1)
				}
				if i%40 == 39 {
					time.Sleep(5 * time.Millisecond) // the workers catch up and wait
				}
			}
			gotMsgs, got := b.Wait()
			check("batch "+strconv.Itoa(round)+" on "+strconv.Itoa(n)+" workers", gotMsgs, got)
		}
		w.Stop()
	}
	check("PrepareAll", nil, p.PrepareAll(msgs, 2, &pool))

	// A batch may go before it is full: Wait returns what was added, and a
	// batch never added to has nothing to wait for.
	w := p.StartWorkers(2, len(msgs), &pool)
	defer w.Stop()
	if gotMsgs, got := w.Batch(len(msgs)).Wait(); len(got) != 0 || len(gotMsgs) != 0 {
		t.Fatalf("an empty batch returned %d items", len(got))
	}
	b := w.Batch(len(msgs))
	b.Add(msgs[0])
	b.Add(msgs[1])
	if gotMsgs, got := b.Wait(); len(got) != 2 || len(gotMsgs) != 2 || got[1].Msg.Offset != 1 {
		t.Fatalf("a batch of 2 records returned %d items", len(got))
	}
}

// TestWorkersStopWhenDone: records handed to the workers one by one (as a
// sharded front's reorder buffer does) are all prepared by the time Stop
// returns, each into its own item.
func TestWorkersStopWhenDone(t *testing.T) {
	p := defaultPreparer(t)
	msgs := generatedRecords(13, 0.2, 60)
	var pool sync.Pool
	pool.New = func() any { return new(Scratch) }
	w := p.StartWorkers(2, 8, &pool) // fewer slots than records: handing over waits for the workers
	items := make([]Item, len(msgs))
	var done sync.WaitGroup
	for i := range msgs {
		done.Add(1)
		w.Submit(&msgs[i], &items[i], &done)
	}
	w.Stop()
	for i := range items {
		if items[i].Msg != &msgs[i] || items[i].Hash != p.Prepare(&msgs[i], new(Scratch)).Hash {
			t.Fatalf("item %d not prepared from its record when Stop returned", i)
		}
	}
	waited := make(chan struct{})
	go func() { done.Wait(); close(waited) }()
	select {
	case <-waited: // every record's Done was called
	case <-time.After(10 * time.Second):
		t.Fatal("a record's Done was not called")
	}
}

// BenchmarkBatchOfAFifth is a batch of batch.size 500 that goes with 110
// records, as at half the throughput rate, on the pipeline's two workers:
// what a batch costs beyond its records' preparation is its buffers.
func BenchmarkBatchOfAFifth(b *testing.B) {
	p := defaultPreparer(b)
	msgs := generatedRecords(12, 0.2, 110)
	var pool sync.Pool
	pool.New = func() any { return new(Scratch) }
	b.ReportAllocs()
	w := p.StartWorkers(2, 500, &pool)
	defer w.Stop()
	for b.Loop() {
		batch := w.Batch(500)
		for _, m := range msgs {
			batch.Add(m)
		}
		batch.Wait()
	}
}

// defaultPreparer is a Preparer of the default decode and sketch settings.
func defaultPreparer(tb testing.TB) *Preparer {
	tb.Helper()
	var cfg Config
	cfg.EnsureDefaults()
	var lc lsh.Config
	lc.EnsureDefaults()
	m, err := lsh.NewMethod(lc, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return New(cfg, clean.New(clean.Options{}), m)
}

// generatedRecords are n JSON records of generated pages (a fraction
// copyRate near-copies of earlier ones), on partitions 0 to 2.
func generatedRecords(seed uint64, copyRate float64, n int) []kafka.Message {
	g := gen.New(gen.Options{Seed: seed, CopyRate: copyRate, EditRate: 0.01})
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		v, _ := json.Marshal(map[string]string{"id": "d" + strconv.Itoa(i), "html": g.Next().HTML})
		msgs[i] = kafka.Message{Topic: "pages", Partition: i % 3, Offset: int64(i), Value: v}
	}
	return msgs
}
