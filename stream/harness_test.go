package stream_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// harness is a real broker on loopback, a real Badger state directory, and the
// pipeline between them, as a test sees them.
type harness struct {
	t      *testing.T
	broker *embedded.Broker
	cfg    stream.Config
	sketch lsh.Config // defaulted by newHarness; change Method and call EnsureDefaults again
	// containment is Deps.Containment; 0 disables the contained verdict.
	containment float64
	// record, when Enabled (and defaulted), makes method a record-mode Method.
	record lsh.RecordConfig
	dir    string
	// reg, if set, registers the pipeline's metrics.
	reg prometheus.Registerer
	// timed, if set, is the pipeline's Deps.Timed.
	timed func(stream.BatchTimes)
}

const (
	topicIn   = "pages"
	topicOut  = "pages.out"
	topicDLQ  = "pages.dlq"
	topicDups = "pages.dups"
)

func newHarness(t *testing.T, partitions int) *harness {
	t.Helper()
	b, err := embedded.Start(embedded.Options{Topics: []string{topicIn, topicOut, topicDLQ, topicDups}, Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	h := &harness{t: t, broker: b, dir: t.TempDir()}
	h.cfg.Kafka = stream.KafkaConfig{Brokers: []string{b.Addr()}, Input: topicIn, Output: topicOut, DeadLetter: topicDLQ, Group: "test"}
	h.cfg.Batch.Size = 64
	h.cfg.Batch.Linger = 5 * time.Millisecond
	h.cfg.EnsureDefaults()
	h.sketch.EnsureDefaults()
	return h
}

// method builds the configured sketch method.
func (h *harness) method() lsh.Method {
	h.t.Helper()
	if h.record.Enabled {
		m, err := lsh.NewRecordMethod(h.record, h.sketch)
		if err != nil {
			h.t.Fatal(err)
		}
		return m
	}
	m, err := lsh.NewMethod(h.sketch, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return m
}

// produce writes msgs to the input topic and waits for the acknowledgement.
func (h *harness) produce(msgs ...kafka.Message) {
	h.t.Helper()
	streamtest.Produce(h.t, h.broker.Addr(), topicIn, msgs...)
}

// process produces msgs and runs a pipeline until it has processed them all.
func (h *harness) process(msgs ...kafka.Message) stream.Counts {
	h.t.Helper()
	h.produce(msgs...)
	c, err := h.runUntil(int64(len(msgs)), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// open opens the state directory and builds a pipeline on it, with hook (if
// not nil) as its Deps.AfterStage.
func (h *harness) open(hook func(string, int) error) (*stream.Pipeline, *state.Store) {
	h.t.Helper()
	if err := h.cfg.Validate(); err != nil {
		h.t.Fatal(err)
	}
	m := h.method()
	st, err := state.Open(h.stateOptions(m))
	if err != nil {
		h.t.Fatal(err)
	}
	p, err := stream.New(h.cfg, stream.Deps{
		Logger: zaptest.NewLogger(h.t, zaptest.Level(zap.InfoLevel)), Cleaner: clean.New(clean.Options{}),
		Method: m, Index: st, Containment: h.containment, AfterStage: hook, Registry: h.reg, Timed: h.timed,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return p, st
}

// stateOptions are the options of the harness's state directory for a
// pipeline running m.
func (h *harness) stateOptions(m lsh.Method) state.Options {
	return state.Options{Dir: filepath.Join(h.dir, "state")}.ForMethod(m)
}

// runUntil runs a pipeline until it has processed n records (or Run returns),
// then stops it gracefully and closes it and its state. It returns Run's error.
func (h *harness) runUntil(n int64, hook func(string, int) error) (stream.Counts, error) {
	return h.runWhile(func(p *stream.Pipeline) bool { return p.Counts().Records < n }, hook)
}

// runToEnd runs a pipeline until the group has committed the whole input topic.
func (h *harness) runToEnd(hook func(string, int) error) (stream.Counts, error) {
	last := time.Now()
	return h.runWhile(func(*stream.Pipeline) bool {
		if time.Since(last) < 100*time.Millisecond {
			return true
		}
		last = time.Now()
		return !h.drained()
	}, hook)
}

func (h *harness) runWhile(more func(*stream.Pipeline) bool, hook func(string, int) error) (stream.Counts, error) {
	h.t.Helper()
	p, st := h.open(hook)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var err error
	deadline := time.After(60 * time.Second)
wait:
	for more(p) {
		select {
		case err = <-done:
			break wait
		case <-deadline:
			cancel()
			h.t.Fatalf("timed out after %d records", p.Counts().Records)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err == nil {
		err = <-done
	}
	c := p.Counts()
	if cerr := errors.Join(p.Close(), st.Close()); cerr != nil {
		h.t.Fatalf("close: %v", cerr)
	}
	return c, err
}

// output is one record read back from an output topic.
type output struct {
	topic   string
	key     string
	value   []byte
	headers map[string]string
}

// readAll reads every record currently in topic (all partitions).
func (h *harness) readAll(topic string) []output {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msgs, err := embedded.ReadAll(ctx, h.broker.Addr(), topic)
	if err != nil {
		h.t.Fatal(err)
	}
	out := make([]output, len(msgs))
	for i, m := range msgs {
		hs := make(map[string]string, len(m.Headers))
		for _, hd := range m.Headers {
			hs[hd.Key] = string(hd.Value)
		}
		out[i] = output{topic: topic, key: string(m.Key), value: m.Value, headers: hs}
	}
	return out
}

// corpusPath finds a real corpus in ../shared/corpora beside the repository,
// or skips the test.
func corpusPath(t *testing.T, name string) string {
	t.Helper()
	p, err := corpus.Locate("corpora", name)
	if err != nil {
		t.Skip(err)
	}
	return p
}

func itoa(i int) string { return strconv.Itoa(i) }
