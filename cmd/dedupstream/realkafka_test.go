package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/prepare"
	"github.com/dedupstream/dedupstream/stream/realkafka"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// The tests of this file run the filter as a process against the real Apache
// Kafka 2.4.0 broker in shared/kafka-2.4.0, in its default configuration
// (message.max.bytes 1,000,012, topics auto-created on produce): one broker,
// started by the first test that needs it and stopped by TestMain, serves
// them all, each on topics of its own.
var realBroker struct {
	once sync.Once
	b    *realkafka.Broker
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	removeBinaries()
	if b := realBroker.b; b != nil {
		if err := b.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop kafka:", err)
		}
		os.RemoveAll(realBroker.dir)
	}
	os.Exit(code)
}

// kafka24 returns the package's real broker, starting it at the first call;
// the test skips where Java or the broker is absent.
func kafka24(t *testing.T) *realkafka.Broker {
	t.Helper()
	realBroker.once.Do(func() {
		if realBroker.dir, realBroker.err = os.MkdirTemp("", "dedupstream-kafka24-"); realBroker.err == nil {
			realBroker.b, realBroker.err = realkafka.Start(realBroker.dir)
		}
	})
	if errors.Is(realBroker.err, realkafka.ErrAbsent) {
		t.Skip(realBroker.err)
	}
	if realBroker.err != nil {
		t.Fatal(realBroker.err)
	}
	return realBroker.b
}

// realEnv is filterEnv for the real broker, logging at info so that the
// admin address can be read.
func realEnv(addr, dir string, extra ...string) []string {
	return filterEnv(addr, dir, append([]string{"DEDUPSTREAM_LOG_LEVEL=info"}, extra...)...)
}

// TestRealKafkaWalkthrough runs README's "Running it against your Kafka" as
// written: without the topics, the start is refused with the command that
// creates them; with --create-topics they are created and two pages
// produced to the input come out tagged; a session timeout the broker
// refuses stops the start with the broker's bound.
func TestRealKafkaWalkthrough(t *testing.T) {
	t.Parallel()
	b := kafka24(t)
	bin := buildBinary(t)
	args := []string{"run", "--brokers", b.Addr(), "--input", "walk", "--output", "walk.out", "--state", t.TempDir()}
	p := startProc(t, bin, realEnv(b.Addr(), t.TempDir()), args...)
	if !p.wait(time.Minute) {
		t.Fatal("the filter did not stop on missing topics")
	}
	out := p.out.String()
	if p.exitCode() == 0 {
		t.Fatalf("exit 0 with missing topics:\n%s", out)
	}
	for _, want := range []string{"walk.out (kafka.output)", "kafka-topics.sh --bootstrap-server " + b.Addr() + " --create --topic walk.out", "--create-topics"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}

	p = startProc(t, bin, realEnv(b.Addr(), t.TempDir()), append(args, "--create-topics")...)
	if !p.waitOutput(`"msg":"admin listening"`, time.Minute) {
		t.Fatalf("the filter did not start:\n%s", p.out.String())
	}
	waitStatus(t, "http://"+adminAddr(t, p)+"/readyz", http.StatusOK, "after the start")
	for _, topic := range []string{"walk", "walk.out", "walk.dlq"} {
		if !strings.Contains(p.out.String(), `"topic":"`+topic+`"`) {
			t.Errorf("no log line says %s was created:\n%s", topic, p.out.String())
		}
	}
	page := "<html><body><p>The harbour master said the ferry would leave at dawn if the wind dropped overnight.</p></body></html>"
	produceRetrying(t, b.Addr(), "walk", []kafka.Message{{Value: []byte(page)}, {Value: []byte(page + "<!-- copy -->")}})
	got := waitTopic(t, b.Addr(), "walk.out", 2, time.Minute)
	want := []string{"unique", "exact_duplicate"}
	for i, m := range got {
		if v := headerMap(m)[stream.HeaderVerdict]; v != want[i] {
			t.Errorf("page %d: verdict %q, want %q", i, v, want[i])
		}
	}

	// A session timeout below the broker's group.min.session.timeout.ms
	// (Kafka's default, 6 s) would have JoinGroup refused for ever.
	p = startProc(t, bin, realEnv(b.Addr(), t.TempDir(), "DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=400ms"), args...)
	if !p.wait(time.Minute) || p.exitCode() == 0 {
		t.Fatalf("the filter did not stop on a session timeout the broker refuses:\n%s", p.out.String())
	}
	if want := "kafka.session_timeout 400ms is below the broker's group.min.session.timeout.ms (6000)"; !strings.Contains(p.out.String(), want) {
		t.Errorf("the refusal does not say %q:\n%s", want, p.out.String())
	}
}

// TestRealKafkaRecordLimits produces 30 pages of ~95 KB, which filled
// produce batches past the broker's default max.message.bytes, and on
// topics limited to 500,000 bytes one page of 700 KB more: every page gets
// its outcome, and the one no output topic takes is dead-lettered
// Oversized with the limit in its message.
func TestRealKafkaRecordLimits(t *testing.T) {
	t.Parallel()
	b := kafka24(t)
	bin := buildBinary(t)
	ctx := context.Background()
	pages := streamtest.BigPages(1, 30, 95_000)
	huge := streamtest.BigPages(2, 1, 700_000)[0]
	huge.Key = []byte("huge")
	for _, c := range []struct {
		input string
		in    []kafka.Message
		limit string // max.message.bytes of the output and dead-letter topics; "" the broker's
	}{
		{"limdef", pages, ""},
		{"lim500k", append(append([]kafka.Message{}, pages...), huge), "500000"},
	} {
		if err := b.CreateTopic(ctx, c.input, 1, "max.message.bytes", "2000000"); err != nil {
			t.Fatal(err)
		}
		for _, topic := range []string{c.input + ".out", c.input + ".dlq"} {
			var cfg []string
			if c.limit != "" {
				cfg = []string{"max.message.bytes", c.limit}
			}
			if err := b.CreateTopic(ctx, topic, 1, cfg...); err != nil {
				t.Fatal(err)
			}
		}
		produceRetrying(t, b.Addr(), c.input, c.in)
		startProc(t, bin, realEnv(b.Addr(), t.TempDir(), "DEDUPSTREAM_KAFKA_INPUT="+c.input, "DEDUPSTREAM_KAFKA_GROUP="+c.input), "run")
	}
	for _, input := range []string{"limdef", "lim500k"} {
		waitDrained(t, b.Addr(), input, input, 2*time.Minute)
		if out := readTopic(t, b.Addr(), input+".out"); len(out) != len(pages) {
			t.Errorf("%s: %d pages forwarded, want %d", input, len(out), len(pages))
		}
	}
	if dlq := readTopic(t, b.Addr(), "limdef.dlq"); len(dlq) != 0 {
		t.Errorf("limdef: %d dead letters, want none", len(dlq))
	}
	dlq := readTopic(t, b.Addr(), "lim500k.dlq")
	if len(dlq) != 1 || string(dlq[0].Key) != "huge" {
		t.Fatalf("lim500k: dead letters %d, want the 700 KB page alone", len(dlq))
	}
	h := headerMap(dlq[0])
	if h[stream.HeaderErrClass] != "dedupstream.Oversized" || !strings.Contains(h[stream.HeaderErrMessage], "max.message.bytes 500000 of lim500k") {
		t.Errorf("dead letter: class %q, message %q; want Oversized naming the 500000 limit", h[stream.HeaderErrClass], h[stream.HeaderErrMessage])
	}
	if h[stream.HeaderOriginalBytes] == "" || len(dlq[0].Value) >= len(huge.Value) {
		t.Errorf("dead letter of %d bytes (original_bytes %q): want it cut to fit the topic", len(dlq[0].Value), h[stream.HeaderOriginalBytes])
	}
}

// TestRealKafkaBrokerCrash SIGKILLs the broker while 3,000 Reuters stories
// are produced and filtered, and restarts it on its log 5 s later: every
// story gets exactly its outcome, and a story emitted twice (replayed after
// the crash) carries the same verdict both times.
func TestRealKafkaBrokerCrash(t *testing.T) {
	path, err := corpus.Locate("corpora", "reuters21578.tar.gz")
	if err != nil {
		t.Skip(err)
	}
	b := kafka24(t)
	var in []kafka.Message
	err = corpus.Read(path, 3000, func(d corpus.Doc) error {
		in = append(in, kafka.Message{Key: []byte(d.ID), Value: prepare.Input{ID: d.ID, Body: d.Title + "\n" + d.Body}.JSON()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, topic := range []string{"crash", "crash.out", "crash.dlq"} {
		if err := b.CreateTopic(ctx, topic, 2); err != nil {
			t.Fatal(err)
		}
	}
	p := startProc(t, buildBinary(t), realEnv(b.Addr(), t.TempDir(), "DEDUPSTREAM_KAFKA_INPUT=crash", "DEDUPSTREAM_KAFKA_GROUP=crash",
		"DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=10s"), "run")
	const slices = 20
	step := len(in) / slices
	for i := 0; i < slices; i++ {
		produceRetrying(t, b.Addr(), "crash", in[i*step:min((i+1)*step, len(in))])
		if i == slices/2 {
			b.Kill()
			time.Sleep(5 * time.Second)
			if err := b.Restart(); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitDrained(t, b.Addr(), "crash", "crash", 3*time.Minute)
	checkEveryKey(t, b.Addr(), in, "crash.out", "crash.dlq")
	if t.Failed() {
		t.Logf("filter log:\n%s", p.out.String())
	}
}

// produceRetrying produces msgs, retrying while the broker restarts.
func produceRetrying(t *testing.T, addr, topic string, msgs []kafka.Message) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: topic, Balancer: &kafka.Hash{}, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	var err error
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if err = w.WriteMessages(context.Background(), msgs...); err == nil {
			return
		}
	}
	t.Fatalf("produce to %s: %v", topic, err)
}

// TestRealKafkaReadiness deletes the output topic under a running filter:
// /readyz answers 503 within admin.stall_after, naming the topic and the
// input partition that stopped moving, and 200 again once the topic is back
// and the writes go through, with every record forwarded.
func TestRealKafkaReadiness(t *testing.T) {
	t.Parallel()
	b := kafka24(t)
	ctx := context.Background()
	for _, topic := range []string{"rdy", "rdy.out", "rdy.dlq"} {
		if err := b.CreateTopic(ctx, topic, 1); err != nil {
			t.Fatal(err)
		}
	}
	p := startProc(t, buildBinary(t), realEnv(b.Addr(), t.TempDir(), "DEDUPSTREAM_KAFKA_INPUT=rdy", "DEDUPSTREAM_KAFKA_GROUP=rdy",
		"DEDUPSTREAM_ADMIN_STALL_AFTER=2s", "DEDUPSTREAM_BATCH_RETRY_BACKOFF=50ms"), "run")
	if !p.waitOutput(`"msg":"admin listening"`, time.Minute) {
		t.Fatalf("the filter did not start:\n%s", p.out.String())
	}
	readyz := "http://" + adminAddr(t, p) + "/readyz"
	waitStatus(t, readyz, http.StatusOK, "after the start")
	pages := streamtest.BigPages(3, 20, 2000)
	produceRetrying(t, b.Addr(), "rdy", pages[:10])
	waitTopic(t, b.Addr(), "rdy.out", 10, time.Minute)

	if err := b.DeleteTopic(ctx, "rdy.out"); err != nil {
		t.Fatal(err)
	}
	produceRetrying(t, b.Addr(), "rdy", pages[10:])
	waitReadyz(t, readyz, http.StatusServiceUnavailable, "writes to rdy.out failing", time.Minute)
	waitReadyz(t, readyz, http.StatusServiceUnavailable, "input rdy partition 0: 10 records not committed", time.Minute)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		err := b.CreateTopic(ctx, "rdy.out", 1) // fails while the deletion is still under way
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	waitReadyz(t, readyz, http.StatusOK, "ok", 2*time.Minute)
	waitDrained(t, b.Addr(), "rdy", "rdy", time.Minute)
	checkEveryKey(t, b.Addr(), pages[10:], "rdy.out")
}

// waitReadyz polls url until it answers want with a body holding text.
func waitReadyz(t *testing.T, url string, want int, text string, d time.Duration) {
	t.Helper()
	var got int
	var body []byte
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if got = resp.StatusCode; got == want && strings.Contains(string(body), text) {
			return
		}
	}
	t.Fatalf("%s = %d %q after %s, want %d with %q", url, got, body, d, want, text)
}

// waitTopic waits up to d until topic holds n records and returns them.
func waitTopic(t *testing.T, addr, topic string, n int, d time.Duration) []kafka.Message {
	t.Helper()
	var got []kafka.Message
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = readTopic(t, addr, topic); len(got) >= n {
			return got
		}
	}
	t.Fatalf("%s holds %d records after %s, want %d", topic, len(got), d, n)
	return nil
}
