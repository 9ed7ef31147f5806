package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/prepare"
	"github.com/dedupstream/dedupstream/stream/shard"
)

var (
	shardedCorpus    = flag.String("sharded-corpus", "reuters21578.tar.gz", "TestShardedCorpus: the corpus in ../shared/corpora whose documents it wraps as pages (20news-bydate.tar.gz: 20 Newsgroups)")
	shardedDocs      = flag.Int("sharded-docs", 400, "TestShardedCorpus: documents of the corpus to wrap as pages (0: all)")
	shardedFleetSize = flag.Int("sharded-instances", 3, "TestShardedCorpus: sharded instances")
	shardedS         = flag.Int("sharded-shards", 8, "TestShardedCorpus: index.shards")
	shardedSlices    = flag.Int("sharded-slices", 10, "TestShardedCorpus: slices the burst is produced in, 200 ms apart")
)

// shardedInput is a labelled input for the sharded tests: a corpus's
// documents (Reuters stories, newsgroup articles) wrapped as pages, the
// originals on partition i mod 4 and their near-copies two partitions away,
// so that with three instances (one owning two partitions) an original and
// its copies are read by different instances.
type shardedInput struct {
	pages             map[string]gen.Page
	originals, copies []kafka.Message
	dead              map[string]bool // pages the filter dead-lettered (set by compareSharded)
}

func corpusInput(t *testing.T, name string, limit int) shardedInput {
	t.Helper()
	path, err := corpus.Locate("corpora", name)
	if err != nil {
		t.Skip(err)
	}
	in := shardedInput{pages: make(map[string]gen.Page)}
	g := gen.New(gen.Options{Seed: 7, CopyRate: 0.5})
	i := 0
	err = corpus.Read(path, limit, func(d corpus.Doc) error {
		part := i % 4
		i++
		for _, p := range g.Wrap(d.Title, d.Body, d.ID) {
			v, err := eval.PageRecord(p)
			if err != nil {
				return err
			}
			in.pages[p.ID] = p
			m := kafka.Message{Key: []byte(p.ID), Value: v, Partition: part}
			if p.Kind == gen.Original {
				in.originals = append(in.originals, m)
			} else {
				m.Partition = (part + 2) % 4
				in.copies = append(in.copies, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestShardedCorpus runs three "dedupstream run --index-shards 8"
// processes on a 4-partition input of Reuters stories (or another corpus,
// -sharded-corpus) and their near-copies,
// with the broker in a process of its own, in two ways: the input produced
// in slices while the fleet runs (a burst), and produced whole before it
// starts (a backlog). Then it reads back the order the shards decided the
// documents in (the sequence log), feeds the same documents in that order to
// one single-instance filter, and compares the outputs record by record: the
// verdicts and dedup.of must be the same. The sharded filter must count no
// document stored out of order (dedupstream_shard_missed_pairs_total), find
// every exact copy, find the near-copies of J ≥ 0.8 (a pair is found when
// the dedup.of chains of both end at one page) with the single instance's
// recall (within one point), report no pair below resemblance 0.6, and
// spread the work over all instances; every duplicate must be in its
// original's dedup.cluster (docs/scale-out.md, "Clusters"). The burst's
// index, collected into one state, must re-cluster offline as the single
// instance's does.
func TestShardedCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four filter processes and a broker process")
	}
	t.Parallel()
	in := corpusInput(t, *shardedCorpus, *shardedDocs)
	bin := buildBinary(t)
	t.Run("burst", func(t *testing.T) { in.compareSharded(t, bin, true) })
	t.Run("backlog", func(t *testing.T) { in.compareSharded(t, bin, false) })
}

// compareSharded is one way of TestShardedCorpus: live, the input produced
// while the fleet runs; else before it starts.
func (in shardedInput) compareSharded(t *testing.T, bin string, live bool) {
	addr := brokerProc(t, bin, 4)
	all := append(append([]kafka.Message(nil), in.originals...), in.copies...)
	if !live {
		produceTo(t, addr, "pages", all)
	}
	var procs []*proc
	for range *shardedFleetSize {
		procs = append(procs, startProc(t, bin, shardedEnv(addr, t.TempDir(), *shardedS, "DEDUPSTREAM_ADMIN_STATE_INTERVAL=100ms"), "run"))
	}
	waitAllReady(t, procs, time.Minute)
	if live {
		slices := max(*shardedSlices, 1)
		for i := range slices {
			produceTo(t, addr, "pages", all[i*len(all)/slices:(i+1)*len(all)/slices])
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitDrained(t, addr, "dedupstream", "pages", 3*time.Minute)
	missed := 0.0
	for _, p := range procs {
		missed += sumMetric(t, p, "dedupstream_shard_missed_pairs_total")
	}
	if missed != 0 {
		t.Errorf("dedupstream_shard_missed_pairs_total sums to %v over the fleet, want 0", missed)
	}
	for i, p := range procs {
		stopProc(t, p)
		if n := recordsDecided(p); n == 0 {
			t.Errorf("instance %d decided no record: the input was not spread", i)
		}
	}
	in.dead = make(map[string]bool)
	classes := make(map[string]int)
	for _, m := range readTopic(t, addr, "pages.dlq") {
		in.dead[string(m.Key)] = true
		classes[headerMap(m)[stream.HeaderErrClass]]++
	}
	if len(in.dead) > 0 {
		t.Logf("%d pages dead-lettered (by class %v): not scored", len(in.dead), classes)
	}
	singleDir := in.runInOrder(t, bin, addr)
	if live {
		in.checkCollected(t, bin, addr, singleDir)
	}
	sharded, alone := firstOutputs(readTopic(t, addr, "pages.out")), firstOutputs(readTopic(t, addr, "single.out"))
	differ, apart, dups := 0, 0, 0
	for id, h := range sharded {
		if w := alone[id]; h[stream.HeaderVerdict] != w[stream.HeaderVerdict] || h[stream.HeaderOf] != w[stream.HeaderOf] {
			differ++
			if differ <= 10 {
				t.Errorf("%s: sharded %s of %q, one instance in the sequence order %s of %q", id, h[stream.HeaderVerdict], h[stream.HeaderOf], w[stream.HeaderVerdict], w[stream.HeaderOf])
			}
		}
		if of := h[stream.HeaderOf]; of != "" {
			dups++
			if h[stream.HeaderCluster] != sharded[of][stream.HeaderCluster] {
				apart++
				t.Logf("%s: dedup.of %s, dedup.cluster %s; its original's first output is in %s", id, of, h[stream.HeaderCluster], sharded[of][stream.HeaderCluster])
			}
		}
	}
	if apart > 0 {
		t.Errorf("%d of %d duplicates are not in their original's dedup.cluster", apart, dups)
	}
	sc, sa := in.score(t, sharded), in.score(t, alone)
	t.Logf("%d pages (%d originals), %d instances × %d shards: %d records differ from one instance's in the sequence order; %d duplicates, %d of them not in their original's cluster; "+
		"recall J ≥ 0.8 by dedup.of sharded %.4f (%d of %d), one instance %.4f; by dedup.cluster %.4f / %.4f; exact copies %d of %d / %d of %d; lowest reported resemblance %.3f",
		len(in.pages), len(in.originals), len(procs), *shardedS, differ, dups, apart, sc.recall(), sc.found, sc.pairs, sa.recall(),
		sc.clusterRecall(), sa.clusterRecall(), sc.exactFound, sc.exact, sa.exactFound, sa.exact, sc.minJ)
	if math.Abs(sc.recall()-sa.recall()) > 0.01 {
		t.Errorf("sharded recall %.4f, single-instance %.4f: more than one point apart", sc.recall(), sa.recall())
	}
	if sc.exactFound != sc.exact {
		t.Errorf("sharded filter found %d of %d exact copies", sc.exactFound, sc.exact)
	}
	if sc.found == 0 || sc.minJ < 0.6 {
		t.Errorf("sharded filter found %d pairs, lowest resemblance %.3f (want pairs, none below 0.6)", sc.found, sc.minJ)
	}
}

// runInOrder feeds the documents of the sharded filter's input to one
// single-instance filter (group "single", output single.out) in the order
// of its sequence log, from a one-partition topic, and returns its state
// directory.
func (in shardedInput) runInOrder(t *testing.T, bin, addr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	order, err := shard.Order(ctx, shard.CollectOptions{Kafka: stream.KafkaConfig{Brokers: []string{addr}, Group: "dedupstream"}})
	if err != nil {
		t.Fatal(err)
	}
	bySource := make(map[string]kafka.Message)
	for _, m := range readTopic(t, addr, "pages") {
		bySource[prepare.SourceOf(&m)] = m
	}
	ordered := make([]kafka.Message, len(order))
	for i, src := range order {
		m, ok := bySource[src]
		if !ok {
			t.Fatalf("the sequence log names %s, which is not in the input", src)
		}
		ordered[i] = kafka.Message{Key: m.Key, Value: m.Value}
	}
	c := &kafka.Client{Addr: kafka.TCP(addr)}
	resp, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{Topic: "ordered", NumPartitions: 1, ReplicationFactor: 1}}})
	if err != nil || resp.Errors["ordered"] != nil {
		t.Fatalf("create the topic ordered: %v %v", err, resp)
	}
	produceTo(t, addr, "ordered", ordered)
	dir := t.TempDir()
	single := startProc(t, bin, filterEnv(addr, dir, "DEDUPSTREAM_KAFKA_GROUP=single", "DEDUPSTREAM_KAFKA_INPUT=ordered",
		"DEDUPSTREAM_KAFKA_OUTPUT=single.out", "DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=1s", "DEDUPSTREAM_LOG_LEVEL=info",
		"DEDUPSTREAM_KAFKA_CREATE_TOPICS=true"), "run")
	waitAllReady(t, []*proc{single}, time.Minute)
	waitDrained(t, addr, "single", "ordered", 2*time.Minute)
	stopProc(t, single)
	return dir
}

// firstOutputs maps each record key to the headers of its first output.
func firstOutputs(out []kafka.Message) map[string]map[string]string {
	heads := make(map[string]map[string]string)
	for _, m := range out {
		if _, ok := heads[string(m.Key)]; !ok {
			heads[string(m.Key)] = headerMap(m)
		}
	}
	return heads
}

// sumMetric sums the series of a metric that a running filter serves.
func sumMetric(t *testing.T, p *proc, name string) float64 {
	t.Helper()
	m := adminLine.FindStringSubmatch(p.out.String())
	if m == nil {
		t.Fatal("no admin address logged")
	}
	sum := 0.0
	for k, v := range scrape(t, "http://"+m[1]) {
		if k == name || strings.HasPrefix(k, name+"{") {
			sum += v
		}
	}
	return sum
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// waitShardDocuments waits until dedupstream_state_documents, summed over
// the instances, counts at least n: every page is stored by at least one
// shard (most by several, each counting it).
func waitShardDocuments(t *testing.T, procs []*proc, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var sum float64
		for _, p := range procs {
			if m := adminLine.FindStringSubmatch(p.out.String()); m != nil {
				sum += scrape(t, "http://"+m[1])["dedupstream_state_documents"]
			}
		}
		if sum >= float64(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("dedupstream_state_documents sums to %v over the instances, want at least %d (one per page)", sum, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkCollected collects the sharded filter's whole index from its probe
// log into one state directory (state collect) and re-clusters it offline:
// it must hold every page once, and Star clustering of it must score against
// the true clusters as well as the same re-clustering of the single
// instance's state (F1 within one point).
func (in shardedInput) checkCollected(t *testing.T, bin, addr, singleDir string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "collected")
	out := mustRun(t, bin, shardedEnv(addr, dir, 8), "state", "collect")
	if want := fmt.Sprintf("collected %d documents", len(in.pages)-len(in.dead)); !strings.Contains(out, want) {
		t.Fatalf("state collect: want %q in its output:\n%s", want, tail(out, 2000))
	}
	truth := filepath.Join(t.TempDir(), "truth.tsv")
	var b strings.Builder
	for id, p := range in.pages {
		fmt.Fprintf(&b, "%s\t%s\n", id, cmp.Or(p.Origin, id))
	}
	if err := os.WriteFile(truth, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f1 := func(dir string) float64 {
		out := mustRun(t, bin, filterEnv(addr, dir), "offline", "cluster", "--truth", truth)
		m := regexp.MustCompile(`F1 ([0-9.]+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("offline cluster printed no F1:\n%s", tail(out, 2000))
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	collected, alone := f1(dir), f1(singleDir)
	t.Logf("offline star clustering against the true clusters: F1 %.3f of the collected sharded index, %.3f of the single instance's state", collected, alone)
	if collected < alone-0.01 {
		t.Errorf("re-clustering the collected index: F1 %.3f, the single instance's state %.3f: more than one point worse", collected, alone)
	}
}

// shardedScore is what score measured of one filter's output.
type shardedScore struct {
	pairs, found      int     // (copy, original) pairs of exact resemblance ≥ 0.8, and those found (one dedup.of chain)
	exact, exactFound int     // of them, the exact copies (resemblance 1)
	clustered         int     // pairs put in one dedup.cluster
	minJ              float64 // lowest exact resemblance of a reported (page, dedup.of) pair
}

func (s shardedScore) recall() float64 { return float64(s.found) / float64(s.pairs) }

// clusterRecall is the share of the pairs put in one dedup.cluster.
func (s shardedScore) clusterRecall() float64 { return float64(s.clustered) / float64(s.pairs) }

// score reads one output's first headers of each page: every page must have
// one, or be dead-lettered (in.dead, not scored); a (copy, original) pair of exact word-5-shingle resemblance J ≥ 0.8 is
// found when following dedup.of from each ends at the same page (the pair
// the index found, directly or through others), and counted as clustered
// when both share dedup.cluster; every duplicate's exact resemblance to its
// dedup.of is measured.
func (in shardedInput) score(t *testing.T, heads map[string]map[string]string) shardedScore {
	t.Helper()
	for id := range heads {
		if in.dead[id] {
			t.Fatalf("%s has an output and a dead letter", id)
		}
	}
	if len(heads)+len(in.dead) != len(in.pages) {
		t.Fatalf("%d pages have an output and %d a dead letter, %d were produced", len(heads), len(in.dead), len(in.pages))
	}
	root := func(id string) string {
		for range len(heads) { // dedup.of points to earlier pages: no cycle
			of := heads[id][stream.HeaderOf]
			if of == "" {
				break
			}
			id = of
		}
		return id
	}
	sets := in.shingleSets()
	s := shardedScore{minJ: 1}
	for id, h := range heads {
		p := in.pages[id]
		if p.Kind != gen.Original && !in.dead[p.Origin] {
			if j := lsh.OverlapOf(sets[id], sets[p.Origin]).Resemblance(); j >= 0.8 {
				found := root(id) == root(p.Origin)
				s.pairs, s.found = s.pairs+1, s.found+btoi(found)
				s.clustered += btoi(h[stream.HeaderCluster] == heads[p.Origin][stream.HeaderCluster])
				if j == 1 {
					s.exact, s.exactFound = s.exact+1, s.exactFound+btoi(found)
				}
			}
		}
		if of := h[stream.HeaderOf]; of != "" {
			s.minJ = min(s.minJ, lsh.OverlapOf(sets[id], sets[of]).Resemblance())
		}
	}
	return s
}

// shingleSets are the pages' exact word-5-shingle sets, cleaned as the stream does.
func (in shardedInput) shingleSets() map[string][]uint64 {
	pages := make([]gen.Page, 0, len(in.pages))
	for _, p := range in.pages {
		pages = append(pages, p)
	}
	docs := eval.CleanPages(pages)
	sets := eval.Sets(docs)
	out := make(map[string][]uint64, len(docs))
	for i, d := range docs {
		out[d.ID] = sets[i]
	}
	return out
}

// stopProc stops a filter with SIGTERM and requires a clean exit.
func stopProc(t *testing.T, p *proc) {
	t.Helper()
	if err := p.signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !p.wait(time.Minute) || p.exitCode() != 0 {
		p.kill()
		t.Fatalf("filter did not stop cleanly on SIGTERM (%v):\n%s", p.err, tail(p.out.String(), 4000))
	}
}

var stoppingRecords = regexp.MustCompile(`"msg":"stopping","counts":\{"Records":(\d+)`)

// recordsDecided is the record count a stopped filter logged.
func recordsDecided(p *proc) int {
	m := stoppingRecords.FindStringSubmatch(p.out.String())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestShardedStandbyFailover runs three instances with index.standbys 1 and
// SIGKILLs one after the first half of the input: its shards must move mostly
// to the members that kept warm copies — reopened from their own stores, at
// most one rebuilt from the start of the sequence log for two warm (the assignor
// keeps members within one shard of their share, so a survivor holding more
// warm copies than its share may have to give one up, when the shards it
// alone holds are more than its share) — and the second half must be
// decided with every record forwarded at least once. Without standbys 7 of 8
// moved shards are rebuilt. It logs the failover time.
func TestShardedStandbyFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three filter processes and a broker process")
	}
	in := corpusInput(t, "reuters21578.tar.gz", 200)
	bin := buildBinary(t)
	addr := brokerProc(t, bin, 4)
	var procs []*proc
	for range 3 {
		procs = append(procs, startProc(t, bin, shardedEnv(addr, t.TempDir(), 8, "DEDUPSTREAM_INDEX_STANDBYS=1"), "run"))
	}
	waitAllReady(t, procs, time.Minute)
	produceTo(t, addr, "pages", in.originals)
	waitDrained(t, addr, "dedupstream", "pages", 2*time.Minute)
	time.Sleep(time.Second) // the standbys tail the sequence log
	before := make([]int, len(procs))
	for i, p := range procs {
		before[i] = len(p.out.String())
	}
	start := time.Now()
	procs[0].kill()
	produceTo(t, addr, "pages", in.copies)
	waitDrained(t, addr, "dedupstream", "pages", 2*time.Minute)
	failover := time.Since(start)
	cold, warm := 0, 0
	for i, p := range procs[1:] {
		for _, line := range strings.Split(p.out.String()[before[i+1]:], "\n") {
			if !strings.Contains(line, `"msg":"shard opened"`) || strings.Contains(line, `"standby":true`) {
				continue
			}
			if strings.Contains(line, `"replay_from":-2`) && !strings.Contains(line, `"answer_from":0}`) {
				cold++
			} else {
				warm++
			}
		}
		stopProc(t, p)
	}
	sc := in.score(t, firstOutputs(readTopic(t, addr, "pages.out"))) // fails unless every page has an outcome
	t.Logf("after the kill: %d shards reopened warm, %d rebuilt from the log; the second half (%d records) drained %s after the kill; pairs found %d of %d",
		warm, cold, len(in.copies), failover.Round(10*time.Millisecond), sc.found, sc.pairs)
	if warm == 0 || 2*cold > warm {
		t.Errorf("%d shards rebuilt from the start of the sequence log, %d reopened warm: want at most one rebuilt for two warm", cold, warm)
	}
}
