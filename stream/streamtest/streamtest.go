// Package streamtest runs the real filter for the tests of packages that read
// what it stores — the offline re-clustering and its reports: an embedded
// Kafka-protocol broker on loopback, a Badger state directory, and
// stream.Pipeline between them, with nothing mocked.
package streamtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// Deadline bounds one Store call. It is generous because the race detector on
// a loaded 2-core machine has made a few thousand pages take over a minute.
const Deadline = 5 * time.Minute

// Store writes msgs to the input topic of a fresh embedded broker with
// partitions partitions (keys hashed, as Kafka clients do), runs the pipeline
// with method m until it has processed every message, then stops it and
// closes pipeline and state, leaving the state in dir.
func Store(t testing.TB, dir string, m lsh.Method, partitions int, msgs []kafka.Message) {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	Produce(t, b.Addr(), "pages", msgs...)
	var cfg stream.Config
	cfg.Kafka.Brokers = []string{b.Addr()}
	cfg.EnsureDefaults()
	st, err := state.Open(state.Options{Dir: dir}.ForMethod(m))
	if err != nil {
		t.Fatal(err)
	}
	p, err := stream.New(cfg, stream.Deps{Logger: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)),
		Cleaner: clean.New(clean.Options{}), Method: m, Index: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Deadline)
	defer cancel()
	run := stream.Start(context.Background(), p)
	n := int64(len(msgs))
	waitErr := run.WaitFor(ctx, func() bool { return p.Counts().Records >= n }, 10*time.Millisecond)
	runErr := run.Stop()
	if errors.Is(waitErr, context.DeadlineExceeded) {
		t.Fatalf("stream processed %d of %d messages in %v", p.Counts().Records, n, Deadline)
	}
	if err := errors.Join(waitErr, runErr); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// Produce writes msgs to topic on the broker at addr, keys hashed to
// partitions as Kafka clients do, and waits for every replica's
// acknowledgement.
func Produce(t testing.TB, addr, topic string, msgs ...kafka.Message) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: topic, Balancer: &kafka.Hash{},
		BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireAll}
	if err := w.WriteMessages(context.Background(), msgs...); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Trickle returns a condition to poll while p runs (Running.WaitFor,
// negated): it produces msgs to topic one at a time, from the moment p has
// joined its group — the next once p has processed the ones before it (gap
// 0), or once gap has passed since the last — and reports whether p has
// records of msgs left to process.
func Trickle(t testing.TB, addr, topic string, p *stream.Pipeline, msgs []kafka.Message, gap time.Duration) (more func() bool) {
	sent, last := 0, time.Time{}
	return func() bool {
		done := p.Counts().Records
		due := gap == 0 && done == int64(sent) || gap > 0 && time.Since(last) >= gap
		if sent < len(msgs) && p.Ready() && due {
			Produce(t, addr, topic, msgs[sent])
			sent++
			last = time.Now()
		}
		return done < int64(len(msgs))
	}
}

// MinHash is the minhash Method of params, as the stream runs it.
func MinHash(t testing.TB, params lsh.Params) lsh.Method {
	t.Helper()
	c := lsh.Config{Method: lsh.MethodMinHash, Params: params}
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Page is the JSON message the filter reads for a page, keyed by its id.
func Page(id, url, html string) kafka.Message {
	return kafka.Message{Key: []byte(id), Value: prepare.Input{ID: id, URL: url, HTML: html}.JSON()}
}

// ReadTopic reads every record of topic on the broker at addr, failing the
// test on an error.
func ReadTopic(t testing.TB, addr, topic string) []kafka.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	msgs, err := embedded.ReadAll(ctx, addr, topic)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// Headers is the headers of m by key.
func Headers(m kafka.Message) map[string]string {
	h := make(map[string]string, len(m.Headers))
	for _, hd := range m.Headers {
		h[hd.Key] = string(hd.Value)
	}
	return h
}

// CheckBatchTimes fails t unless got — what a pipeline reported to
// stream.Deps.Timed (stream.BatchLog) — has one BatchTimes for each of c's
// batches, holding c's records between them, with every moment set and in
// stage order. It returns got.
func CheckBatchTimes(t testing.TB, c stream.Counts, got []stream.BatchTimes) []stream.BatchTimes {
	t.Helper()
	if int64(len(got)) != c.Batches || c.Batches == 0 {
		t.Fatalf("Timed called %d times for %d batches, want one a batch", len(got), c.Batches)
	}
	records := 0
	for i, bt := range got {
		records += bt.Records
		at := bt.Moments()
		for j, m := range at {
			if m.IsZero() {
				t.Errorf("batch %d: %s not set", i, stream.MomentNames[j])
			} else if j > 0 && m.Before(at[j-1]) {
				t.Errorf("batch %d: %s at %v, before %s at %v", i, stream.MomentNames[j], m, stream.MomentNames[j-1], at[j-1])
			}
		}
	}
	if int64(records) != c.Records {
		t.Errorf("the batches reported %d records, the pipeline counted %d", records, c.Records)
	}
	return got
}

// BigPages returns n raw HTML pages of about size bytes each, of random
// words drawn from seed, no two alike, keyed page-SEED-I.
func BigPages(seed uint64, n, size int) []kafka.Message {
	r := rand.New(rand.NewPCG(seed, uint64(size)))
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		var sb strings.Builder
		sb.WriteString("<html><body><p>")
		for sb.Len() < size {
			for l := 3 + r.IntN(7); l > 0; l-- {
				sb.WriteByte(byte('a' + r.IntN(26)))
			}
			sb.WriteByte(' ')
		}
		sb.WriteString("</p></body></html>")
		msgs[i] = kafka.Message{Key: fmt.Appendf(nil, "page-%d-%d", seed, i), Value: []byte(sb.String())}
	}
	return msgs
}
