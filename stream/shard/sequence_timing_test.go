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
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// BenchmarkSequenceLog measures the ceiling of the one-partition sequence
// log on the embedded broker: fronts appending batch records of probes as
// Ask does (a 256-byte signature, 11 keys, an id, URL and input position per
// document; acks from all replicas) and one shard reading them back, for 1
// and 3 concurrent fronts and batches of 64 and 500 documents. It reports
// documents, records and bytes per second for each. One b.N is one batch.
//
//	go test -run '^$' -bench BenchmarkSequenceLog -benchtime 400x ./stream/shard
func BenchmarkSequenceLog(b *testing.B) {
	for _, fronts := range []int{1, 3} {
		for _, docs := range []int{64, 500} {
			b.Run(fmt.Sprintf("fronts=%d/docs=%d", fronts, docs), func(b *testing.B) { benchSequence(b, fronts, docs) })
		}
	}
}

func benchSequence(b *testing.B, fronts, docs int) {
	br, err := embedded.Start(embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := &kafka.Client{Addr: kafka.TCP(br.Addr())}
	if err := createTopics(ctx, c, []kafka.TopicConfig{topicConfig("g.sequence", 1, -1)}, 1); err != nil {
		b.Fatal(err)
	}
	msgs := batchRecords(docs)
	var bytes int64
	for _, m := range msgs {
		bytes += int64(len(m.Value))
	}
	k := stream.KafkaConfig{Brokers: []string{br.Addr()}, MaxBatchBytes: 1 << 20}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for f := range fronts {
		wg.Go(func() {
			w := newPartitionWriter(k, stream.Security{})
			defer w.Close()
			for i := f; i < b.N; i += fronts {
				if err := w.WriteMessages(ctx, msgs...); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	wrote := time.Since(start)
	read := readAll(b, ctx, br.Addr(), int64(b.N*len(msgs)))
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(n*float64(docs)/wrote.Seconds(), "docs/s-append")
	b.ReportMetric(n*float64(len(msgs))/wrote.Seconds(), "records/s-append")
	b.ReportMetric(n*float64(bytes)/wrote.Seconds()/1e6, "MB/s-append")
	b.ReportMetric(n*float64(docs)/read.Seconds(), "docs/s-read")
	b.ReportMetric(float64(bytes)/float64(docs), "B/doc")
}

// batchRecords are the sequence-log records of one front batch of n
// documents of the default sketch's size.
func batchRecords(n int) []kafka.Message {
	pk := newPacker(wireVersion, kindProbes)
	for i := range n {
		p := probe{reply: i % 4, doc: state.Doc{
			ID: fmt.Sprintf("https://example.org/news/%08d", i), URL: fmt.Sprintf("https://example.org/news/%08d", i),
			Source: fmt.Sprintf("pages/%d/%d", i%4, 1000000+i), Time: time.Unix(1700000000, int64(i)),
			ContentHash: uint64(i) * 0x9e3779b97f4a7c15, Bands: make([]uint64, 11), Sketch: make([]byte, 256),
		}}
		for j := range p.doc.Bands {
			p.doc.Bands[j] = uint64(i*31+j) * 0x9e3779b97f4a7c15
		}
		pk.add(func(dst []byte) []byte { return appendProbeBody(dst, &p) })
	}
	recs := pk.records()
	msgs := make([]kafka.Message, len(recs))
	for i, v := range recs {
		msgs[i] = kafka.Message{Topic: "g.sequence", Value: v}
	}
	return msgs
}

// readAll reads want records of g.sequence from the start, decoding each as
// a shard does, and returns the time it took.
func readAll(b *testing.B, ctx context.Context, addr string, want int64) time.Duration {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{addr}, Topic: "g.sequence", MinBytes: 1, MaxBytes: 16 << 20, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	start := time.Now()
	for got := int64(0); got < want; got++ {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := decodeLogRecord(m.Value); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}
