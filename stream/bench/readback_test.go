package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// latencyTopic starts a broker with a two-partition topic "t", which a
// latency run with no pipeline reads back as written, and returns a
// context for the test, the broker and 50 documents at 2,000 a second.
func latencyTopic(t *testing.T) (context.Context, Cluster, LatencyDocs) {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{"t"}, Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	src := &Source{Name: "test", bodies: []string{"one two three four five six seven eight nine ten"}}
	return ctx, Cluster{Addr: b.Addr()}, LatencyDocs{Src: src, First: 0, Warm: LatencyWarmup, N: 50, Rate: 2000}
}

// encoded encodes ld's documents for the test, freed when it ends.
func encoded(t *testing.T, ld LatencyDocs) *Encoded {
	t.Helper()
	e, err := ld.Encode()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Free(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// TestLatencyReadsFromTheEnd: the latency mode measures only the records
// written after it starts, so it can run on a topic that already holds some,
// as a fleet's output topic does after the throughput run. Records with the
// keys of measured documents ("d…") already on the topic must not be counted.
func TestLatencyReadsFromTheEnd(t *testing.T) {
	ctx, c, ld := latencyTopic(t)
	var before []kafka.Message
	for i := range 30 {
		before = append(before, kafka.Message{Key: fmt.Appendf(nil, "d%d", i), Value: []byte("earlier")})
	}
	streamtest.Produce(t, c.Addr, "t", before...)
	run, err := RunLatency(ctx, c, 2, nil, "t", "t", encoded(t, ld), nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Docs != ld.N || len(run.Lat) != ld.N {
		t.Fatalf("measured %d records (%d latencies), want the %d produced by the run", run.Docs, len(run.Lat), ld.N)
	}
	inWindows := 0
	for i, w := range run.Timeline {
		inWindows += w.Records
		if i > 0 && !w.Start.After(run.Timeline[i-1].Start) {
			t.Errorf("timeline window %d starts at %v, not after the one before (%v)", i, w.Start, run.Timeline[i-1].Start)
		}
	}
	if inWindows != ld.N {
		t.Errorf("the timeline's windows hold %d records, want %d", inWindows, ld.N)
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

// TestLatencyTracesLateRecords: with a SlowTrace, a record as late as Over
// writes the execution trace of the seconds before it, and a run whose
// records are all faster writes none.
func TestLatencyTracesLateRecords(t *testing.T) {
	ctx, cl, ld := latencyTopic(t)
	dir, docs := t.TempDir(), encoded(t, ld)
	for _, c := range []struct {
		over  time.Duration
		files int
	}{
		{time.Hour, 0},       // no record is that late
		{time.Nanosecond, 1}, // every record is
	} {
		st := &SlowTrace{Path: filepath.Join(dir, fmt.Sprintf("trace-%s", c.over)), Over: c.over, Max: 1}
		run, err := RunLatency(ctx, cl, 2, nil, "t", "t", docs, st)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Traces) != c.files {
			t.Fatalf("over %s: %d traces written (%v), want %d", c.over, len(run.Traces), run.Traces, c.files)
		}
		if _, err := os.Stat(st.Path); (err == nil) != (c.files > 0) {
			t.Fatalf("over %s: trace file %s: %v", c.over, st.Path, err)
		}
		for _, tf := range run.Traces {
			data, err := os.ReadFile(tf.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("go 1.")) || len(data) < 1000 || tf.Latency < c.over {
				t.Fatalf("trace %s: %d bytes beginning %q, of a record %s late; want a Go execution trace of a record at least %s late",
					tf.Path, len(data), data[:min(len(data), 16)], tf.Latency, c.over)
			}
		}
	}
}

// TestSlowTracerSpacesAndCountsTraces: a late record triggers a trace unless
// one was triggered less than a trace window before or Max were; records
// under Over trigger none; the files are Path, Path.2, ...; a write that
// fails is an error, not a trace.
func TestSlowTracerSpacesAndCountsTraces(t *testing.T) {
	var wrote []string
	fail := false
	tr := &slowTracer{cfg: SlowTrace{Path: "p", Over: 50 * time.Millisecond, Max: 2}, write: func(path string) error {
		wrote = append(wrote, path) // writes are serialised
		if fail {
			return errors.New("disk full")
		}
		return nil
	}}
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		at      time.Duration
		latency time.Duration
	}{
		{0, 10 * time.Millisecond},                       // not late
		{time.Second, 60 * time.Millisecond},             // trace 1
		{2 * time.Second, 90 * time.Millisecond},         // within the window of trace 1
		{4100 * time.Millisecond, 55 * time.Millisecond}, // trace 2
		{9 * time.Second, 80 * time.Millisecond},         // Max reached
	} {
		tr.saw(t0.Add(r.at), r.latency)
		tr.wg.Wait()
	}
	files, err := tr.stop()
	if err != nil || !slices.Equal(wrote, []string{"p", "p.2"}) || len(files) != 2 ||
		files[0].At != t0.Add(time.Second) || files[1].Path != "p.2" || files[1].Latency != 55*time.Millisecond {
		t.Fatalf("wrote %v, traces %+v, %v; want p (at +1s) and p.2 (55 ms late)", wrote, files, err)
	}
	fail, wrote = true, nil
	tr = &slowTracer{cfg: tr.cfg, write: tr.write}
	tr.saw(t0, time.Second)
	if files, err := tr.stop(); err == nil || len(files) != 0 || len(wrote) != 1 {
		t.Fatalf("a failed write: traces %v, error %v; want none and the error", files, err)
	}
}
