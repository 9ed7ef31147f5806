package stream

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// benchMessages are JSON records of generated pages' article text (~2 KB, like
// 20 Newsgroups posts) with a share of near-copies.
func benchMessages(b *testing.B, n int) []kafka.Message {
	b.Helper()
	g := gen.New(gen.Options{Seed: 3, CopyRate: 0.2, EditRate: 0.01})
	c := clean.New(clean.Options{})
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		text, _ := c.HTML(nil, []byte(g.Next().HTML))
		v, _ := json.Marshal(map[string]string{"id": "d" + strconv.Itoa(i), "body": string(text)})
		msgs[i] = kafka.Message{Topic: "pages", Offset: int64(i), Value: v}
	}
	return msgs
}

func benchPreparer() *prepare.Preparer {
	var cfg Config
	cfg.EnsureDefaults()
	var c lsh.Config
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, nil)
	if err != nil {
		panic(err)
	}
	return prepare.New(cfg.Decode, clean.New(clean.Options{}), m)
}

// BenchmarkPrepare is decode + clean + shingle + MinHash + band keys of one record.
func BenchmarkPrepare(b *testing.B) {
	msgs := benchMessages(b, 1000)
	p := benchPreparer()
	var s prepare.Scratch
	var bytes int64
	for i := range msgs {
		bytes += int64(len(msgs[i].Value))
	}
	b.SetBytes(bytes / int64(len(msgs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Prepare(&msgs[i%len(msgs)], &s)
	}
}

// BenchmarkDecideStagePublish is the sequential part per record: lookups
// (replay, exact, LSH candidates, verification) and both state writes, in
// batches of 500, against an on-disk store that grows as it runs.
func BenchmarkDecideStagePublish(b *testing.B) {
	msgs := benchMessages(b, 20000)
	p := benchPreparer()
	var pool sync.Pool
	pool.New = func() any { return new(prepare.Scratch) }
	items := p.PrepareAll(msgs, 2, &pool)
	st, err := state.Open(state.Options{Dir: b.TempDir(), SketchVersion: p.Method().Version()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	d := NewDecider(st, p.Method(), DeciderOptions{})
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(500, b.N-done)
		batch := make([]prepare.Item, n)
		for i := range batch {
			batch[i] = items[(done+i)%len(items)]
			batch[i].Msg = &kafka.Message{Topic: "pages", Offset: int64(done + i)} // a new record each time
		}
		dec, err := d.DecideBatch(validDocs(batch))
		if err == nil {
			err = st.Stage(dec.Stage)
		}
		if err == nil {
			err = st.Publish(dec.Publish)
		}
		if err != nil {
			b.Fatal(err)
		}
		d.Retire(dec)
		done += n
	}
}
