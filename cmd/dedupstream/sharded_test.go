package main

import (
	"cmp"
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
)

var shardedDocs = flag.Int("sharded-docs", 400, "TestShardedReuters: Reuters stories to wrap as pages (0: all)")

// shardedInput is a labelled input for the sharded tests: Reuters stories
// wrapped as pages, the originals on partition i mod 4 and their near-copies
// two partitions away, so that with three instances (one owning two
// partitions) an original and its copies are read by different instances.
type shardedInput struct {
	pages             map[string]gen.Page
	originals, copies []kafka.Message
}

func reutersInput(t *testing.T, limit int) shardedInput {
	t.Helper()
	path, err := corpus.Locate("corpora", "reuters21578.tar.gz")
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

// TestShardedReuters runs three "dedupstream run --index-shards 8" processes
// on a 4-partition input, with the broker in a process of its own, and beside
// them one single-instance filter over the same input: the sharded filter must
// find the near-copies of Reuters stories read by other instances than their
// originals with the single instance's recall (within one point), report no
// pair below resemblance 0.6, and spread the work over all three.
func TestShardedReuters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four filter processes and a broker process")
	}
	in := reutersInput(t, *shardedDocs)
	bin := buildBinary(t)
	addr := brokerProc(t, bin, 4)
	var procs []*proc
	for range 3 {
		procs = append(procs, startProc(t, bin, shardedEnv(addr, t.TempDir(), 8, "DEDUPSTREAM_ADMIN_STATE_INTERVAL=100ms"), "run"))
	}
	// The single instance reads the same input at the same time, so that both
	// see the originals before the copies: a single instance started on the
	// whole backlog reads its partitions in no particular order, and a copy
	// read before its original takes the cluster away from the original's
	// other copies.
	singleDir := t.TempDir()
	single := startProc(t, bin, filterEnv(addr, singleDir, "DEDUPSTREAM_KAFKA_GROUP=single", "DEDUPSTREAM_KAFKA_OUTPUT=single.out",
		"DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=1s", "DEDUPSTREAM_LOG_LEVEL=info"), "run")
	waitAllReady(t, append(procs, single), time.Minute)
	for _, part := range [][]kafka.Message{in.originals, in.copies} {
		produceTo(t, addr, "pages", part)
		waitDrained(t, addr, "dedupstream", "pages", 2*time.Minute)
		waitDrained(t, addr, "single", "pages", 2*time.Minute)
	}
	waitShardDocuments(t, procs, len(in.pages))
	for i, p := range procs {
		stopProc(t, p)
		if n := recordsDecided(p); n == 0 {
			t.Errorf("instance %d decided no record: the input was not spread", i)
		}
	}
	stopProc(t, single)
	in.checkCollected(t, bin, addr, singleDir)

	sharded := in.score(t, readTopic(t, addr, "pages.out"))
	alone := in.score(t, readTopic(t, addr, "single.out"))
	t.Logf("%d originals, %d copies: pairs found sharded %d (recall %.4f), single instance %d (recall %.4f); lowest reported resemblance %.3f / %.3f",
		len(in.originals), len(in.copies), sharded.found, sharded.recall(), alone.found, alone.recall(), sharded.minJ, alone.minJ)
	if math.Abs(sharded.recall()-alone.recall()) > 0.01 {
		t.Errorf("sharded recall %.4f, single-instance %.4f: more than one point apart", sharded.recall(), alone.recall())
	}
	if sharded.found == 0 || sharded.minJ < 0.6 {
		t.Errorf("sharded filter found %d pairs, lowest resemblance %.3f (want pairs, none below 0.6)", sharded.found, sharded.minJ)
	}
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
	if want := fmt.Sprintf("collected %d documents", len(in.pages)); !strings.Contains(out, want) {
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
	pairs, found int     // (copy, original) pairs, and those put in one cluster
	minJ         float64 // lowest exact resemblance of a reported (page, dedup.of) pair
}

func (s shardedScore) recall() float64 { return float64(s.found) / float64(s.pairs) }

// score reads one output: each page's first verdict must exist, a pair is
// found when copy and original share dedup.cluster, and every duplicate's
// exact resemblance to its dedup.of is measured.
func (in shardedInput) score(t *testing.T, out []kafka.Message) shardedScore {
	t.Helper()
	heads := make(map[string]map[string]string)
	for _, m := range out {
		if _, ok := heads[string(m.Key)]; !ok {
			heads[string(m.Key)] = headerMap(m)
		}
	}
	if len(heads) != len(in.pages) {
		t.Fatalf("%d pages have an output, %d were produced", len(heads), len(in.pages))
	}
	sets := in.shingleSets()
	s := shardedScore{minJ: 1}
	for id, h := range heads {
		p := in.pages[id]
		if p.Kind != gen.Original {
			s.pairs++
			if h[stream.HeaderCluster] == heads[p.Origin][stream.HeaderCluster] {
				s.found++
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
// most one rebuilt from the start of the probe log for two warm (the assignor
// keeps members within one shard of their share, so a survivor holding more
// warm copies than its share may have to give one up, when the shards it
// alone holds are more than its share) — and the second half must be
// decided with every record forwarded at least once. Without standbys 7 of 8
// moved shards are rebuilt. It logs the failover time.
func TestShardedStandbyFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three filter processes and a broker process")
	}
	in := reutersInput(t, 200)
	bin := buildBinary(t)
	addr := brokerProc(t, bin, 4)
	var procs []*proc
	for range 3 {
		procs = append(procs, startProc(t, bin, shardedEnv(addr, t.TempDir(), 8, "DEDUPSTREAM_INDEX_STANDBYS=1"), "run"))
	}
	waitAllReady(t, procs, time.Minute)
	produceTo(t, addr, "pages", in.originals)
	waitDrained(t, addr, "dedupstream", "pages", 2*time.Minute)
	time.Sleep(time.Second) // the standbys tail the probe log
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
	sc := in.score(t, readTopic(t, addr, "pages.out")) // fails unless every page has an outcome
	t.Logf("after the kill: %d shards reopened warm, %d rebuilt from the log; the second half (%d records) drained %s after the kill; pairs found %d of %d",
		warm, cold, len(in.copies), failover.Round(10*time.Millisecond), sc.found, sc.pairs)
	if warm == 0 || 2*cold > warm {
		t.Errorf("%d shards rebuilt from the start of the probe log, %d reopened warm: want at most one rebuilt for two warm", cold, warm)
	}
}
