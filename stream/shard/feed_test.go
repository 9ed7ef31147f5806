package shard

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// sequenceOf starts an embedded broker holding a sequence log of n probe
// records, one document each, whose sources number them in log order, and
// returns a feed over it.
func sequenceOf(t *testing.T, n int) (*feed, context.Context) {
	t.Helper()
	b, ctx := startBroker(t, "g.sequence", 1)
	w := &kafka.Writer{Addr: kafka.TCP(b.Addr()), Topic: "g.sequence", BatchSize: 100, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		pk := newPacker(wireVersion, kindProbes)
		p := probe{doc: state.Doc{ID: fmt.Sprint(i), Source: fmt.Sprintf("pages/0/%d", i), ContentHash: uint64(i + 1), Bands: []uint64{uint64(i)}}}
		pk.add(func(dst []byte) []byte { return appendProbeBody(dst, &p) })
		msgs[i] = kafka.Message{Key: []byte(fmt.Sprint(i)), Value: pk.records()[0]}
	}
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	readers := 0
	f := newFeed(stream.BatchConfig{Size: 16, Linger: 10 * time.Millisecond}, func(offset int64) (*kafka.Reader, error) {
		readers++
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{b.Addr()}, Topic: "g.sequence", MaxWait: 50 * time.Millisecond})
		return r, r.SetOffset(offset)
	})
	t.Cleanup(f.close)
	return f, ctx
}

// readFeed has shard id read the feed from offset until it has applied the
// record before end, checking that each record comes once, in order, with
// its probe placed at its position, and returns the decoded records it was
// given by offset.
func readFeed(t *testing.T, ctx context.Context, f *feed, id int, offset, end int64) map[int64]*logRecord {
	t.Helper()
	got := make(map[int64]*logRecord)
	want := offset
	if want < 0 {
		want = 0
	}
	for want < end {
		b, err := f.next(ctx, id, offset)
		if err != nil {
			t.Errorf("shard %d at %d: %v", id, offset, err)
			return got
		}
		for i := range b.msgs {
			m, rec := &b.msgs[i], &b.recs[i]
			if m.Offset >= end {
				break
			}
			if m.Offset != want || b.errs[i] != nil || len(rec.probes) != 1 {
				t.Errorf("shard %d: got offset %d (error %v, %d probes), want %d", id, m.Offset, b.errs[i], len(rec.probes), want)
				return got
			}
			d := &rec.probes[0].doc
			if d.Source != fmt.Sprintf("pages/0/%d", want) || d.Pos != positionOf(want, 0) || len(d.Bands) != 2 {
				t.Errorf("shard %d at %d: probe %s at %x with %d keys", id, want, d.Source, d.Pos, len(d.Bands))
			}
			got[m.Offset] = rec
			want++
		}
		offset = want
	}
	return got
}

// TestFeedDecodesOnceForShardsTogether checks that shards reading the
// sequence log at one offset get every record, in order, from one decoding
// (the same records), on one cursor, and a shard starting a little behind
// them too.
func TestFeedDecodesOnceForShardsTogether(t *testing.T) {
	f, ctx := sequenceOf(t, 300)
	got := make([]map[int64]*logRecord, 3)
	var wg sync.WaitGroup
	for id := range got {
		f.mu.Lock()
		f.at[id] = kafka.FirstOffset // every shard starts at once, as a generation's do
		f.mu.Unlock()
	}
	for id := range got {
		wg.Go(func() { got[id] = readFeed(t, ctx, f, id, kafka.FirstOffset, 300) })
	}
	wg.Wait()
	for o := range int64(300) {
		if got[0][o] == nil || got[0][o] != got[1][o] || got[0][o] != got[2][o] {
			t.Fatalf("record %d decoded apart for the shards: %p %p %p", o, got[0][o], got[1][o], got[2][o])
		}
	}
	if n := len(f.cursors); n != 1 {
		t.Errorf("%d cursors for shards at one offset, want 1", n)
	}
	// A shard starting a little behind, after the others have read on,
	// finds the records in their window (keptWindow).
	late := readFeed(t, ctx, f, 3, 10, 300)
	if late[10] != got[0][10] || late[299] != got[0][299] || len(f.cursors) != 1 {
		t.Errorf("a shard starting behind read apart (%d cursors)", len(f.cursors))
	}
}

// TestFeedShardBehindJoinsTheOthers checks that a shard starting behind the
// others reads on a cursor of its own, gets every record from its offset in
// order, and reads on the others' cursor once it reaches their window,
// its own closed; and that one further behind than the window bound still
// gets every record. The readers open are reported as they change.
func TestFeedShardBehindJoinsTheOthers(t *testing.T) {
	f, ctx := sequenceOf(t, 400)
	f.mu.Lock()
	f.at[0], f.at[1] = 200, 50
	open, most := 0, 0 // what dedupstream_shard_sequence_readers shows
	f.readers = func(n int) { open, most = n, max(most, n) }
	f.mu.Unlock()
	ahead := readFeed(t, ctx, f, 0, 200, 260) // shard 0 reads on to 260 first
	if b, err := f.next(ctx, 1, 50); err != nil || b.msgs[0].Offset != 50 {
		t.Fatalf("shard 1 at 50: %v", err)
	}
	if n := len(f.cursors); n != 2 {
		t.Fatalf("%d cursors while shard 1 is behind, want 2 (its own, the others')", n)
	}
	behind := readFeed(t, ctx, f, 1, 50, 260)
	ahead2 := readFeed(t, ctx, f, 0, 260, 400)
	behind2 := readFeed(t, ctx, f, 1, 260, 400)
	if n := len(f.cursors); n != 1 {
		t.Errorf("%d cursors once shard 1 caught up, want 1", n)
	}
	for o := range int64(400) {
		if o >= 260 && ahead2[o] != behind2[o] {
			t.Fatalf("record %d decoded apart after shard 1 caught up", o)
		}
	}
	if len(ahead) != 60 || len(behind) != 210 {
		t.Errorf("read %d and %d records, want 60 and 210", len(ahead), len(behind))
	}

	// With a window of a few records, a slow shard loses the others' window
	// and reads on a cursor of its own: every record still comes, in order.
	f.mu.Lock()
	f.window = 200 // bytes: a few records
	f.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { readFeed(t, ctx, f, 2, 0, 400) })
	wg.Go(func() {
		for o := int64(0); o < 400; o += 40 {
			readFeed(t, ctx, f, 3, o, o+40)
			time.Sleep(5 * time.Millisecond)
		}
	})
	wg.Wait()
	f.leave(2)
	f.leave(3)
	f.leave(0)
	f.leave(1)
	if n := len(f.cursors); n != 0 || open != 0 || most < 2 {
		t.Errorf("%d cursors open once every shard left (reported %d, at most %d), want 0 (at most 2 or more)", n, open, most)
	}
}
