package shard

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/prepare"
	"github.com/dedupstream/dedupstream/stream/streamtest"
)

// TestEveryMethodSharded runs the sharded index in process — one front, one
// shard server, 4 shards, the embedded broker over TCP — with every sketch
// method (and drop mode with a duplicates topic, and a state TTL) over
// generated pages on 3 input partitions, then one single-instance filter over
// the same pages in the order the shards decided them (read back from the
// sequence log): record by record, the verdicts and dedup.of must be the
// single instance's, and no document stored out of the log's order. The multi-process tests are in
// cmd/dedupstream.
func TestEveryMethodSharded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the filter over the embedded broker for each method")
	}
	t.Parallel() // with TestShardBalance: the package's two longest tests overlap
	pages := genPages(t, 300)
	for _, name := range []string{lsh.MethodMinHash, lsh.MethodOPH, lsh.MethodBottomK, lsh.MethodModM,
		lsh.MethodFull, lsh.MethodSuperShingle, lsh.MethodSimHash} {
		t.Run(name, func(t *testing.T) {
			c := lsh.Config{Method: name}
			c.EnsureDefaults()
			m, err := lsh.NewMethod(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			compareWithSingle(t, m, pages, stream.ModeTag, 0)
		})
	}
	t.Run("drop mode, ttl", func(t *testing.T) {
		compareWithSingle(t, streamtest.MinHash(t, lsh.Params{}), pages, stream.ModeDrop, time.Hour)
	})
}

func genPages(t *testing.T, n int) []gen.Page {
	g := gen.New(gen.Options{Seed: 3, CopyRate: 0.4})
	pages := make([]gen.Page, n)
	for i := range pages {
		pages[i] = g.Next()
	}
	return pages
}

func compareWithSingle(t *testing.T, m lsh.Method, pages []gen.Page, mode stream.Mode, ttl time.Duration) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq", "pages.dup", "single.out", "single.dup"},
		Partitions: 3, MinSessionTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	byKey := make(map[string]kafka.Message, len(pages))
	msgs := make([]kafka.Message, len(pages))
	for i, p := range pages {
		v, err := eval.PageRecord(p)
		if err != nil {
			t.Fatal(err)
		}
		msgs[i] = kafka.Message{Key: []byte(p.ID), Value: v}
	}
	streamtest.Produce(t, b.Addr(), "pages", msgs...)
	for _, msg := range streamtest.ReadTopic(t, b.Addr(), "pages") {
		byKey[prepare.SourceOf(&msg)] = msg
	}
	reg := prometheus.NewRegistry()
	dir := t.TempDir()
	sharded := runFilter(t, b.Addr(), m, mode, ttl, filterRun{group: "sharded", input: "pages", output: "pages.out", dups: "pages.dup", shards: 4, reg: reg, dir: dir})
	if n := missedPairs(t, reg); n != 0 {
		t.Errorf("dedupstream_shard_missed_pairs_total = %v, want 0", n)
	}
	storedOnce(t, m, dir, 4, len(pages))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	order, err := Order(ctx, CollectOptions{Kafka: stream.KafkaConfig{Brokers: []string{b.Addr()}, Group: "sharded"}})
	if err != nil {
		t.Fatal(err)
	}
	ordered := make([]kafka.Message, len(order))
	for i, src := range order {
		ordered[i] = kafka.Message{Key: byKey[src].Key, Value: byKey[src].Value}
	}
	createTopic(t, b.Addr(), "ordered", 1)
	streamtest.Produce(t, b.Addr(), "ordered", ordered...)
	single := runFilter(t, b.Addr(), m, mode, ttl, filterRun{group: "single", input: "ordered", output: "single.out", dups: "single.dup"})
	if len(order) != len(pages) {
		t.Fatalf("the sequence log holds %d of %d pages", len(order), len(pages))
	}
	for name, out := range map[string]map[string]map[string]string{"sharded": sharded, "single": single} {
		if len(out) != len(pages) {
			t.Fatalf("%s: %d of %d pages have an outcome", name, len(out), len(pages))
		}
	}
	dups := sameVerdicts(t, sharded, single)
	t.Logf("%s: %d pages, %d duplicates: verdicts, dedup.of and clusters record by record as one instance's in the sequence order",
		m.Version(), len(pages), dups)
	if dups == 0 {
		t.Errorf("no duplicate found")
	}
}

// sameVerdicts compares a sharded filter's first outcomes with a single
// instance's, record by record: the verdicts and dedup.of must be the same,
// every duplicate must be in its original's dedup.cluster, and the clusters
// must group the records as the single instance's do (the ids differ: a
// shard's are hashes of input positions). It returns the duplicates.
func sameVerdicts(t *testing.T, sharded, single map[string]map[string]string) (dups int) {
	t.Helper()
	apart := 0
	for id, h := range sharded {
		want := single[id]
		if h[stream.HeaderVerdict] != want[stream.HeaderVerdict] || h[stream.HeaderOf] != want[stream.HeaderOf] {
			t.Errorf("%s: sharded %s of %q, one instance %s of %q", id, h[stream.HeaderVerdict], h[stream.HeaderOf], want[stream.HeaderVerdict], want[stream.HeaderOf])
		}
		if of := h[stream.HeaderOf]; of != "" {
			dups++
			if h[stream.HeaderCluster] != sharded[of][stream.HeaderCluster] {
				if apart++; apart <= 10 {
					t.Errorf("%s: duplicate of %s in cluster %s, its original in %s", id, of, h[stream.HeaderCluster], sharded[of][stream.HeaderCluster])
				}
			}
		}
	}
	if apart > 0 {
		t.Errorf("%d of %d duplicates are not in their original's cluster", apart, dups)
	}
	if err := sameGrouping(sharded, single, stream.HeaderCluster); err != nil {
		t.Error(err)
	}
	return dups
}

// sameGrouping reports whether header h groups the records of a and b
// alike: each value in a corresponds to exactly one value in b.
func sameGrouping(a, b map[string]map[string]string, h string) error {
	ab, ba := map[string]string{}, map[string]string{}
	for id, ha := range a {
		va, vb := ha[h], b[id][h]
		if w, ok := ab[va]; ok && w != vb {
			return fmt.Errorf("%s %s holds records that one instance puts in %s and %s (%s among them)", h, va, w, vb, id)
		}
		if w, ok := ba[vb]; ok && w != va {
			return fmt.Errorf("one instance's %s %s holds records that are in %s and %s here (%s among them)", h, vb, w, va, id)
		}
		ab[va], ba[vb] = vb, va
	}
	return nil
}

// missedPairs is dedupstream_shard_missed_pairs_total summed over the shards.
func missedPairs(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == "dedupstream_shard_missed_pairs_total" {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

func createTopic(t *testing.T, addr, topic string, partitions int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := &kafka.Client{Addr: kafka.TCP(addr)}
	if err := createTopics(ctx, c, []kafka.TopicConfig{{Topic: topic, NumPartitions: partitions}}, 1); err != nil {
		t.Fatal(err)
	}
}

// filterRun names one filter's group and topics: sharded over shards, or a
// single instance with shards 0; reg, if set, registers its metrics.
type filterRun struct {
	group, input, output, dups string
	shards                     int
	reg                        *prometheus.Registry
	dir                        string // its state directory ("": a temporary one)
}

// storedOnce checks that the shard stores under dir hold every one of n
// documents exactly once, each in its home shard, and every shard some.
func storedOnce(t *testing.T, m lsh.Method, dir string, shards, n int) {
	t.Helper()
	srv := NewServer(Config{Shards: shards}, Topology{Shards: shards}, ServerOptions{Method: m, State: state.Options{Dir: dir}})
	var sum int64
	for id := range shards {
		st, err := state.Open(srv.storeOptions(id))
		if err != nil {
			t.Fatal(err)
		}
		docs := st.Stats().Replays
		sum += docs
		if docs == 0 {
			t.Errorf("shard %d of %d stores no document", id, shards)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if sum != int64(n) {
		t.Errorf("the shard stores hold %d documents, want each of the %d once", sum, n)
	}
}

// runFilter runs one filter over the whole of its input and returns the
// first headers of each record's output (output and duplicates topics).
func runFilter(t *testing.T, addr string, m lsh.Method, mode stream.Mode, ttl time.Duration, r filterRun) map[string]map[string]string {
	t.Helper()
	var cfg stream.Config
	cfg.Kafka.Brokers, cfg.Kafka.Group, cfg.Kafka.Input, cfg.Kafka.Output, cfg.Kafka.Duplicates = []string{addr}, r.group, r.input, r.output, r.dups
	cfg.Kafka.SessionTimeout = time.Second
	cfg.Mode = mode
	cfg.Batch.Size = 64
	cfg.EnsureDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if r.dir == "" {
		r.dir = t.TempDir()
	}
	p, run, stop := startFilterOn(t, ctx, cfg, m, state.Options{Dir: r.dir, TTL: ttl}, r.shards, nil, r.reg)
	// Done when the group has committed the whole input: a count of records
	// decided can reach it early when a rebalance has some decided twice.
	n := int64(len(streamtest.ReadTopic(t, addr, r.input)))
	waitErr := run.WaitFor(ctx, func() bool {
		lag, err := embedded.GroupLag(ctx, addr, r.group, r.input)
		return p.Counts().Records >= n && err == nil && lag == 0
	}, 10*time.Millisecond)
	if err := errors.Join(waitErr, stop()); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]map[string]string)
	for _, topic := range []string{r.output, r.dups} {
		for _, msg := range streamtest.ReadTopic(t, addr, topic) {
			if _, ok := out[string(msg.Key)]; !ok {
				out[string(msg.Key)] = streamtest.Headers(msg)
			}
		}
	}
	if mode == stream.ModeDrop && len(streamtest.ReadTopic(t, addr, r.dups)) == 0 {
		t.Errorf("drop mode wrote nothing to the duplicates topic %s", r.dups)
	}
	return out
}

// startFilter starts a filter of cfg reading the topic "pages": sharded with
// shards > 0 (a front and a shard server in process), else on a single
// state; timed, if not nil, is its Deps.Timed. stop stops it, closes what it
// opened and returns what its pipeline and server returned.
func startFilter(t *testing.T, ctx context.Context, cfg stream.Config, m lsh.Method, so state.Options, shards int, timed func(stream.BatchTimes)) (p *stream.Pipeline, run *stream.Running, stop func() error) {
	t.Helper()
	return startFilterOn(t, ctx, cfg, m, so, shards, timed, nil)
}

// startFilterOn is startFilter registering the shards' metrics in reg (nil: none).
func startFilterOn(t *testing.T, ctx context.Context, cfg stream.Config, m lsh.Method, so state.Options, shards int, timed func(stream.BatchTimes), reg prometheus.Registerer) (p *stream.Pipeline, run *stream.Running, stop func() error) {
	t.Helper()
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	deps := stream.Deps{Logger: log, Cleaner: clean.New(clean.Options{}), Method: m, ReorderIdle: 250 * time.Millisecond, Timed: timed}
	var srv *Server
	var closers []func() error // in the order they are closed
	if shards == 0 {
		st, err := state.Open(so.ForMethod(m))
		if err != nil {
			t.Fatal(err)
		}
		closers = append(closers, st.Close)
		deps.Index = st
	} else {
		ic := Config{Shards: shards}
		ic.EnsureDefaults()
		client := &kafka.Client{Addr: kafka.TCP(cfg.Kafka.Brokers[0])}
		top, err := EnsureTopics(ctx, client, cfg.Kafka.Input, cfg.Kafka.Group, ic, so.TTL)
		if err != nil {
			t.Fatal(err)
		}
		front := NewFront(ic, top, FrontOptions{Kafka: cfg.Kafka, Logger: log})
		srv = NewServer(ic, top, ServerOptions{Kafka: cfg.Kafka, Batch: cfg.Batch, Method: m, State: so, Logger: log, Registry: reg})
		closers = append(closers, srv.Close, front.Close)
		deps.Sharded = front
	}
	p, err := stream.New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	closers = append([]func() error{p.Close}, closers...)
	served := make(chan error, 1)
	serveCtx, stopServe := context.WithCancel(context.Background())
	if srv != nil {
		go func() { served <- srv.Run(serveCtx) }()
	} else {
		served <- nil
	}
	run = stream.Start(context.Background(), p)
	return p, run, func() error {
		errs := []error{run.Stop()}
		stopServe()
		errs = append(errs, <-served)
		for _, c := range closers {
			_ = c() // what the run returned is the measure here
		}
		return errors.Join(errs...)
	}
}
