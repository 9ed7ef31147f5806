package stream_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// setTopicLimit sets max.message.bytes of topics on the harness's broker.
func (h *harness) setTopicLimit(limit int, topics ...string) {
	h.t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(h.broker.Addr()), Timeout: 10 * time.Second, Transport: &kafka.Transport{}}
	req := &kafka.AlterConfigsRequest{}
	for _, topic := range topics {
		req.Resources = append(req.Resources, kafka.AlterConfigRequestResource{ResourceType: kafka.ResourceTypeTopic, ResourceName: topic,
			Configs: []kafka.AlterConfigRequestConfig{{Name: "max.message.bytes", Value: fmt.Sprint(limit)}}})
	}
	resp, err := c.AlterConfigs(context.Background(), req)
	if err == nil {
		for _, r := range resp.Errors {
			err = errors.Join(err, r)
		}
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// TestRefusedBatchesAreSplit runs the pipeline with writers sized above the
// output topic's max.message.bytes (as when the limit was lowered under a
// running filter): batches the broker refuses are split and sent again, and
// a record the topic refuses alone is dead-lettered Oversized at the
// PRODUCE stage instead of being retried forever.
func TestRefusedBatchesAreSplit(t *testing.T) {
	h := newHarness(t, 1)
	h.setTopicLimit(300_000, topicOut)
	pages := streamtest.BigPages(1, 20, 95_000)
	huge := streamtest.BigPages(2, 1, 400_000)[0]
	in := append(append([]kafka.Message{}, pages[:10]...), huge)
	in = append(in, pages[10:]...)
	h.process(in...)
	out := h.readAll(topicOut)
	if len(out) != len(pages) {
		t.Fatalf("%d pages forwarded, want %d", len(out), len(pages))
	}
	dlq := h.readAll(topicDLQ)
	if len(dlq) != 1 || dlq[0].key != string(huge.Key) {
		t.Fatalf("dead letters %+v, want the 400 KB page alone", len(dlq))
	}
	hs := dlq[0].headers
	if hs[stream.HeaderErrStage] != stream.StageProduce || hs[stream.HeaderErrClass] != "dedupstream.Oversized" ||
		!strings.Contains(hs[stream.HeaderErrMessage], "refused it as too large") {
		t.Errorf("dead letter headers %v: want stage %s, class Oversized, the broker's refusal", hs, stream.StageProduce)
	}
	if len(dlq[0].value) != len(huge.Value) {
		t.Errorf("dead letter of %d bytes, want the whole %d-byte page", len(dlq[0].value), len(huge.Value))
	}
}

// TestUnwritableDeadLetterStops: when the dead-letter topic refuses the
// dead letter of a record the output refused, the pipeline stops with an
// error that says so, and does not commit the record.
func TestUnwritableDeadLetterStops(t *testing.T) {
	h := newHarness(t, 1)
	h.setTopicLimit(300_000, topicOut, topicDLQ)
	huge := streamtest.BigPages(3, 1, 400_000)[0]
	h.produce(huge)
	_, err := h.runWhile(func(*stream.Pipeline) bool { return true }, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot be dead-lettered either") {
		t.Fatalf("Run returned %v, want the dead letter's refusal", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if lag, err := embedded.GroupLag(ctx, h.broker.Addr(), h.cfg.Kafka.Group, topicIn); err != nil || lag != 1 {
		t.Errorf("group lag %d (%v), want the record left uncommitted", lag, err)
	}
}

// brokerConfig starts an embedded broker, stopped with the test, and returns
// it with a configuration that reaches it.
func brokerConfig(t *testing.T, o embedded.Options) (*embedded.Broker, stream.Config) {
	t.Helper()
	b, err := embedded.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	var cfg stream.Config
	cfg.Kafka.Brokers = []string{b.Addr()}
	cfg.EnsureDefaults()
	return b, cfg
}

// TestCheckTopics: missing topics are refused with the command that creates
// them, created with kafka.create_topics (the input's partition count),
// and every topic's max.message.bytes is read.
func TestCheckTopics(t *testing.T) {
	b, cfg := brokerConfig(t, embedded.Options{Topics: []string{"pages"}, Partitions: 3})
	log := zaptest.NewLogger(t)
	_, err := stream.CheckTopics(context.Background(), cfg.Kafka, stream.Security{}, log)
	if !errors.Is(err, stream.ErrMissingTopics) {
		t.Fatalf("CheckTopics = %v, want ErrMissingTopics", err)
	}
	for _, want := range []string{"pages.out (kafka.output)", "pages.dlq (kafka.dead_letter)",
		"kafka-topics.sh --bootstrap-server " + b.Addr() + " --create --topic pages.out --partitions 3 --replication-factor 1", "--create-topics"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	cfg.Kafka.CreateTopics = true
	top, err := stream.CheckTopics(context.Background(), cfg.Kafka, stream.Security{}, log)
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Missing()) != 0 {
		t.Errorf("still missing after creation: %+v", top.Missing())
	}
	for _, x := range top.List {
		if x.Partitions != 3 || x.MaxMessageBytes <= 0 || x.Created != (x.Key != stream.KeyInput) {
			t.Errorf("%+v: want 3 partitions, a limit read, created unless the input", x)
		}
	}
	again, err := stream.InspectTopics(context.Background(), cfg.Kafka, stream.Security{})
	if err != nil || len(again.Missing()) != 0 {
		t.Fatalf("InspectTopics after creation: %+v, %v", again, err)
	}
}

// TestSessionTimeoutBounds: the broker's group session timeout bounds are
// read with the topics, and a kafka.session_timeout outside them is refused
// with the bound to set, before anything joins a group.
func TestSessionTimeoutBounds(t *testing.T) {
	for _, least := range []time.Duration{0, 250 * time.Millisecond} { // 0: the broker's default, 6 s
		_, cfg := brokerConfig(t, embedded.Options{Topics: []string{"pages"}, MinSessionTimeout: least})
		top, err := stream.InspectTopics(context.Background(), cfg.Kafka, stream.Security{})
		if err != nil {
			t.Fatal(err)
		}
		want := cmp.Or(least, 6*time.Second)
		if top.MinSessionTimeout != want || top.MaxSessionTimeout != 5*time.Minute {
			t.Fatalf("bounds read %s–%s, want %s–5m0s", top.MinSessionTimeout, top.MaxSessionTimeout, want)
		}
		for _, c := range []struct {
			timeout time.Duration
			refused string
		}{
			{want - time.Millisecond, fmt.Sprintf("below the broker's group.min.session.timeout.ms (%d)", want.Milliseconds())},
			{want, ""},
			{5 * time.Minute, ""},
			{6 * time.Minute, "above the broker's group.max.session.timeout.ms (300000)"},
		} {
			cfg.Kafka.SessionTimeout = c.timeout
			err := stream.SessionTimeoutError(cfg.Kafka, top)
			if (err == nil) != (c.refused == "") || err != nil && !strings.Contains(err.Error(), c.refused) {
				t.Errorf("broker minimum %s, kafka.session_timeout %s: %v, want refused %q", want, c.timeout, err, c.refused)
			}
		}
		cfg.Kafka.SessionTimeout = want - time.Millisecond
		cfg.Kafka.CreateTopics = true
		if err := stream.CheckKafka(&cfg, stream.Security{}, false, zaptest.NewLogger(t)); err == nil || !strings.Contains(err.Error(), "group.min.session.timeout.ms") {
			t.Errorf("CheckKafka with kafka.session_timeout %s: %v, want the broker's minimum", cfg.Kafka.SessionTimeout, err)
		}
	}
}

// TestSizeWriters: the writers keep below the least limit of the topics
// they write, and the configured bound stays a bound.
func TestSizeWriters(t *testing.T) {
	topics := func(out, dlq int) stream.Topics {
		return stream.Topics{List: []stream.Topic{
			{Key: stream.KeyInput, Name: "in", Partitions: 1, MaxMessageBytes: 100},
			{Key: stream.KeyOutput, Name: "out", Partitions: 1, MaxMessageBytes: out},
			{Key: stream.KeyDeadLetter, Name: "dlq", Partitions: 1, MaxMessageBytes: dlq},
		}, BrokerMaxMessageBytes: 400_000}
	}
	f := func(top stream.Topics, internal bool, wantBatch int, wantWhy string) {
		t.Helper()
		k := stream.KafkaConfig{MaxBatchBytes: 1 << 20}
		record, why := stream.SizeWriters(&k, top, internal)
		if k.MaxBatchBytes != wantBatch || record != wantBatch-16<<10 || !strings.Contains(why, wantWhy) {
			t.Errorf("batch %d, record %d (%s); want batch %d, %q", k.MaxBatchBytes, record, why, wantBatch, wantWhy)
		}
	}
	f(topics(1_000_012, 2_000_000), false, 1_000_012-7061, "max.message.bytes 1000012 of out")
	f(topics(1_000_012, 500_000), false, 500_000-7061, "of dlq")
	f(topics(1_000_012, 500_000), true, 400_000-7061, "of the broker")
	f(topics(8_000_000, 8_000_000), false, 1<<20, "kafka.max_batch_bytes 1048576")
	f(topics(0, 0), false, 1<<20, "kafka.max_batch_bytes")
	missing := topics(0, 0)
	missing.List[1].Partitions = 0 // created with the broker's limit
	f(missing, false, 400_000-7061, "of out")
}
