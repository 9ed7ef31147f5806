package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// TestLatencyReadsFromTheEnd: the latency mode measures only the records
// written after it starts, so it can run on a topic that already holds some,
// as a fleet's output topic does after the throughput run. Records with the
// keys of measured documents ("d…") already on the topic must not be counted.
func TestLatencyReadsFromTheEnd(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"t"}, Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var before []kafka.Message
	for i := range 30 {
		before = append(before, kafka.Message{Key: fmt.Appendf(nil, "d%d", i), Value: []byte("earlier")})
	}
	streamtest.Produce(t, b.Addr(), "t", before...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	src := &Source{Name: "test", bodies: []string{"one two three four five six seven eight nine ten"}}
	ld := LatencyDocs{Src: src, First: 0, Warm: LatencyWarmup, N: 50, Rate: 2000}
	run, err := RunLatency(ctx, Cluster{Addr: b.Addr()}, 2, nil, "t", "t", ld)
	if err != nil {
		t.Fatal(err)
	}
	if run.Docs != ld.N || len(run.Lat) != ld.N {
		t.Fatalf("measured %d records (%d latencies), want the %d produced by the run", run.Docs, len(run.Lat), ld.N)
	}
}

// TestEndOffsetsOfAMissingTopic: a latency topic is created by its first
// write, so before the run it has no end offsets, which is no error.
func TestEndOffsetsOfAMissingTopic(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"t"}, Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	streamtest.Produce(t, b.Addr(), "t", kafka.Message{Value: []byte("x")})
	ends, err := endOffsets(ctx, Cluster{Addr: b.Addr()}, "t", 2)
	if err != nil || ends[0]+ends[1] != 1 {
		t.Fatalf("end offsets of t after one record: %v, %v; want one partition at 1", ends, err)
	}
	if ends, err := endOffsets(ctx, Cluster{Addr: b.Addr()}, "missing", 2); err != nil || len(ends) != 0 {
		t.Fatalf("end offsets of a missing topic: %v, %v; want none and no error", ends, err)
	}
}
