package shard

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// BenchmarkShardApply measures what one shard of eight spends on a
// document of the sequence log, without Kafka: decoding its probe record
// (encoded beforehand, as a front appends it), looking it up and deciding
// it, storing it if this is its home (one in eight), and packing its
// answer. The store holds 20,000 documents first; the documents are 300
// words drawn from a 5,000-word vocabulary, sketched with the default
// method. One b.N is one document, in batch records of 500.
//
//	go test -run '^$' -bench BenchmarkShardApply -benchtime 200000x ./stream/shard
func BenchmarkShardApply(b *testing.B) {
	c := lsh.Config{}
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := openRunOf(b, Config{AnswerTimeout: 10 * time.Second, MemtableBytes: 16 << 20}, m, 8)
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", rng.Uint64()%(1<<24))
	}
	var sc lsh.Scratch
	next := 0
	docs := func(n int) []state.Doc {
		out := make([]state.Doc, n)
		for i := range out {
			words := make([]string, 300)
			for j := range words {
				words[j] = vocab[rng.IntN(len(vocab))]
			}
			sketch, keys := m.Sketch(&sc, []byte(strings.Join(words, " ")), nil, nil)
			out[i] = state.Doc{ID: fmt.Sprintf("d%d", next), Source: fmt.Sprintf("pages/%d/%d", next%4, next),
				Time: time.Unix(1700000000, 0), ContentHash: rng.Uint64(), Sketch: sketch, Bands: keys}
			next++
		}
		return out
	}
	records := func(batch []state.Doc) [][]byte { // as the front appends them
		pk := newPacker(wireVersion, kindProbes)
		for i := range batch {
			p := probe{reply: i % 4, doc: batch[i]}
			pk.add(func(dst []byte) []byte { return appendProbeBody(dst, &p) })
		}
		return pk.records()
	}
	offset := int64(0)
	apply := func(recs [][]byte) {
		out := newAnswerPacker()
		for _, v := range recs {
			m := kafka.Message{Offset: offset, Key: binary.BigEndian.AppendUint64(nil, uint64(offset)), Value: v, Time: time.Unix(1700000000, 0)}
			fb := decodeBatch([]kafka.Message{m})
			if err := fb.errs[0]; err != nil {
				b.Fatal(err)
			}
			rec := fb.recs[0]
			run := r.appendProbes(make([]probeAt, 0, len(rec.probes)), &m, rec.probes)
			if _, err := r.decide(run, offset+1, out); err != nil {
				b.Fatal(err)
			}
			offset++
		}
		out.messages("answers")
	}
	for range 40 {
		apply(records(docs(500)))
	}
	var batches [][][]byte
	for n := b.N; n > 0; n -= 500 {
		batches = append(batches, records(docs(min(n, 500))))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for _, recs := range batches {
		apply(recs)
	}
}
