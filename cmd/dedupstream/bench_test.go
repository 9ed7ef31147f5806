package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream/bench"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// TestBenchCommand runs dedupstream bench, both modes, on a small corpus of
// generated pages against an embedded broker, and checks what it reports.
func TestBenchCommand(t *testing.T) {
	dir := benchCorpus(t, 3, 40)
	b, err := embedded.Start(embedded.Options{Partitions: 2, Topics: bench.Topics()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out, errb bytes.Buffer
	files := t.TempDir()
	prof, tr := filepath.Join(files, "cpu"), filepath.Join(files, "trace")
	if rc := realMain([]string{"bench", "--corpus", dir, "--brokers", b.Addr(), "--docs", "300",
		"--latency-docs", "200", "--rate", "2000", "--cpuprofile", prof, "--trace", tr, "--trace-over", "1ns", "--traces", "1"}, &out, &errb); rc != 0 {
		t.Fatalf("bench exited %d: %s\n%s", rc, errb.String(), out.String())
	}
	t.Log(out.String())
	sum := summaryFields(t, out.String())
	for k, want := range map[string]string{"docs": "300", "stored": "300"} {
		if sum[k] != want {
			t.Errorf("summary %s=%s, want %s", k, sum[k], want)
		}
	}
	for _, k := range []string{"pass_docs_s", "docs_s", "floor_p50_ms", "floor_max_ms", "pass_p50_ms", "pass_max_ms", "p50_ms", "p99_ms", "max_ms", "metric_p99_ms"} {
		if v, err := strconv.ParseFloat(sum[k], 64); err != nil || v < 0 {
			t.Errorf("summary %s=%q is not a figure", k, sum[k])
		}
	}
	// The machine's free page reporting, which the tail depends on
	// (BENCHMARKS.md): said in the summary, and in a line when it is on.
	if pr := bench.ReadPageReporting("/"); sum["page_reporting"] != pr.String() || pr.On != strings.Contains(out.String(), "reports free memory to its host") {
		t.Errorf("page_reporting=%q, want this machine's, %q, and the line said only when on (%t)", sum["page_reporting"], pr.String(), pr.On)
	}
	// Brokers outside the bench: their CPU is not the bench's to read.
	if sum["broker_cpu_s"] != "-" || sum["latency_cores"] != "-" || strings.Contains(out.String(), "the broker process's CPU") {
		t.Errorf("summary broker_cpu_s=%q latency_cores=%q with --brokers, want - and no broker CPU line", sum["broker_cpu_s"], sum["latency_cores"])
	}
	if p50, _ := strconv.ParseFloat(sum["p50_ms"], 64); p50 > mustFloat(t, sum["max_ms"]) {
		t.Errorf("p50 %s ms above max %s ms", sum["p50_ms"], sum["max_ms"])
	}
	// The filter's own latency metric: here its p99 is the warm-up's (20
	// records of 220, which waited for the group join), so only its presence
	// is checked; a full run compares it with p99_ms (BENCHMARKS.md).
	if m := mustFloat(t, sum["metric_p99_ms"]); m <= 0 || !strings.Contains(out.String(), "the filter's own dedupstream_record_latency_seconds") {
		t.Errorf("metric_p99_ms=%v, want > 0 and the line of the filter's own latency", m)
	}
	if !regexp.MustCompile(`where the filter's batches spent their time.*: all [1-9][0-9]* batches: fetch [0-9.]+, gather .* emit [0-9.]+ ms: [0-9.]+ in all; the slowest 2% \([1-9][0-9]*\): fetch`).MatchString(out.String()) {
		t.Errorf("the latency mode does not say where the filter's batches spent their time")
	}
	if !strings.Contains(out.String(), "for its state's compactions to settle (--settle)") {
		t.Errorf("the latency mode does not say how long it waited for compactions")
	}
	for _, run := range []string{"| no pipeline (produce → read back) | 200 |", "| passthrough | 200 |", "| dedupstream | 200 |"} {
		if !strings.Contains(out.String(), run) {
			t.Errorf("latency table has no row %q", run)
		}
	}
	// --cpuprofile profiles the throughput and the latency run, --trace the
	// latency run's late records (every record is 1 ns late; one trace).
	for _, f := range []string{prof, prof + ".latency", tr} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v, want a non-empty file", f, err)
		}
	}
	if !strings.Contains(out.String(), "execution trace of the seconds before a record read back at") {
		t.Errorf("the latency mode does not name its trace")
	}
	// The trace holds the pipeline's stage regions.
	if data, err := os.ReadFile(tr); err == nil {
		for _, region := range []string{"stage prepare", "stage decide", "stage emit", "stage publish"} {
			if !bytes.Contains(data, []byte(region)) {
				t.Errorf("the trace has no region %q", region)
			}
		}
	}
}

// TestBenchMethod: --method picks the filter's sketch method, and the
// summary names the sketch it ran.
func TestBenchMethod(t *testing.T) {
	dir := benchCorpus(t, 4, 20)
	b, err := embedded.Start(embedded.Options{Partitions: 2, Topics: []string{"bench", "bench.out", "bench.dlq"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out, errb bytes.Buffer
	if rc := realMain([]string{"bench", "--corpus", dir, "--brokers", b.Addr(), "--docs", "200",
		"--latency-docs", "0", "--passthrough=false", "--method", "oph"}, &out, &errb); rc != 0 {
		t.Fatalf("bench exited %d: %s\n%s", rc, errb.String(), out.String())
	}
	sum := summaryFields(t, out.String())
	if !strings.HasPrefix(sum["sketch"], "oph128-") || sum["stored"] != "200" {
		t.Errorf("summary sketch=%q stored=%q, want oph128-… and 200:\n%s", sum["sketch"], sum["stored"], out.String())
	}
}

// benchCorpus writes n generated pages (no copies among them) into a new
// directory, a corpus for --corpus.
func benchCorpus(t *testing.T, seed uint64, n int) string {
	t.Helper()
	dir := t.TempDir()
	g := gen.New(gen.Options{Seed: seed, CopyRate: -1})
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "p"+strconv.Itoa(i)+".html"), []byte(g.Next().HTML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// summaryFields parses the bench's "summary:" line.
func summaryFields(t *testing.T, out string) map[string]string {
	t.Helper()
	_, line, ok := strings.Cut(out, "\nsummary: ")
	if !ok {
		t.Fatalf("no summary line in\n%s", out)
	}
	line, _, _ = strings.Cut(line, "\n")
	m := map[string]string{}
	for _, kv := range strings.Fields(line) {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBenchFleet runs the bench's fleet mode — the broker and two sharded
// "dedupstream run" instances as processes of their own — on generated pages
// and checks its summary line: every document counted, bytes in the internal
// topics, postings spread over the 4 shards, the latency mode run on the
// fleet, a rebuild timed, and a failover: one instance SIGKILLed, its shards
// served again by the other from the standby copies it kept.
func TestBenchFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and three filter processes")
	}
	t.Parallel()
	dir := benchCorpus(t, 5, 60)
	bin := buildBinary(t)
	out := mustRun(t, bin, os.Environ(), "bench", "--corpus", dir, "--docs", "300", "--partitions", "2",
		"--latency-docs", "200", "--passthrough=false", "--instances", "2", "--index-shards", "4", "--rebuild",
		"--standbys", "1", "--failover")
	_, line, ok := strings.Cut(out, "\nfleet ")
	if !ok {
		t.Fatalf("no fleet line in:\n%s", tail(out, 3000))
	}
	f := make(map[string]string)
	for _, kv := range strings.Fields(strings.SplitN(line, "\n", 2)[0]) {
		k, v, _ := strings.Cut(kv, "=")
		f[k] = v
	}
	t.Log("fleet " + strings.SplitN(line, "\n", 2)[0])
	if f["instances"] != "2" || f["shards"] != "4" || f["docs"] != "300" {
		t.Errorf("fleet line %v: want instances=2 shards=4 docs=300", f)
	}
	if b := mustFloat(t, f["shard_balance"]); b < 1 || b > 1.5 {
		t.Errorf("shard_balance=%v: postings of the fullest of 4 shards over the mean, want in [1, 1.5]", b)
	}
	for _, k := range []string{"sequence_b_per_doc", "answers_b_per_doc", "cpu_us_per_doc", "rebuild_s", "failover_s",
		"latency_rate", "floor_p50_ms", "p50_ms", "latency_cpu_us"} {
		if mustFloat(t, f[k]) <= 0 {
			t.Errorf("%s=%s, want > 0", k, f[k])
		}
	}
	if p50, p99, top := mustFloat(t, f["p50_ms"]), mustFloat(t, f["p99_ms"]), mustFloat(t, f["max_ms"]); p50 > p99 || p99 > top {
		t.Errorf("fleet latency p50 %v, p99 %v, max %v ms: not in order", p50, p99, top)
	}
	// The bench's own broker: its CPU in the latency run is read from /proc.
	if runtime.GOOS == "linux" {
		if v := f["latency_broker_us"]; v == "-" || mustFloat(t, v) <= 0 || !strings.Contains(out, ", the broker process's CPU: ") {
			t.Errorf("latency_broker_us=%s, want > 0 and a line of the broker's CPU", v)
		}
	}
	if want := bench.ReadPageReporting("/").String(); f["page_reporting"] != want {
		t.Errorf("page_reporting=%q, want this machine's, %q", f["page_reporting"], want)
	}
	if !strings.Contains(out, "| dedupstream fleet | 200 |") {
		t.Errorf("no latency row of the fleet's 200 documents in:\n%s", tail(out, 3000))
	}
	m := regexp.MustCompile(`\nfailover: instance 1 \(shards \[\d+ \d+\]\) SIGKILLed once the fleet was idle \([0-9.]+ s after the run\); the others served all 4 shards [0-9.]+ s later \((\d+) reopened warm, (\d+) rebuilt`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no failover line for instance 1 and its 2 shards in:\n%s", tail(out, 3000))
	}
	if warm, rebuilt := mustFloat(t, m[1]), mustFloat(t, m[2]); warm < 1 || warm+rebuilt != 2 {
		t.Errorf("%s: want the killed instance's 2 shards reopened, at least one warm from the standby", m[0][1:])
	}
}

// TestBenchBrokerLogFlag: --broker-log takes disk or memory, and only for
// the bench's own broker.
func TestBenchBrokerLogFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--broker-log", "memory"}, true},
		{[]string{"--broker-log", "tape"}, false},
		{[]string{"--brokers", "127.0.0.1:9092"}, true},
		{[]string{"--brokers", "127.0.0.1:9092", "--broker-log", "disk"}, false},
	} {
		o, err := parseBench(append([]string{"--corpus", "c.tar.gz"}, c.args...), io.Discard)
		if (err == nil) != c.ok {
			t.Errorf("bench %v: %v; want ok %t", c.args, err, c.ok)
		}
		if err == nil && o.brokers == "" && o.brokerLog != c.args[1] {
			t.Errorf("bench %v: broker log %q", c.args, o.brokerLog)
		}
	}
}

// TestBenchBrokerLog: the bench's own broker process keeps its log in a
// temporary directory by default (files appear there during the run) and
// removes it at exit; with --broker-log memory it writes no files. The
// bench reports the broker process's CPU beside its own (with the disk log,
// a latency run too: the cores the two processes kept busy).
func TestBenchBrokerLog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bench and its broker as processes")
	}
	t.Parallel()
	dir := benchCorpus(t, 6, 20)
	bin := buildBinary(t)
	for _, where := range []string{"disk", "memory"} {
		tmp := t.TempDir()
		var out bytes.Buffer
		latencyDocs := map[string]string{"disk": "200", "memory": "0"}[where]
		cmd := exec.Command(bin, "bench", "--corpus", dir, "--docs", "200", "--latency-docs", latencyDocs, "--rate", "2000", "--settle=false",
			"--passthrough=false", "--broker-log", where)
		cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), "TMPDIR="+tmp), &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// While it runs: is there a log segment with records in it (kfake's
		// partitions/<topic>-<p>/<offset>.dat) in a broker directory under TMPDIR?
		sawLog, running := false, true
		for running && !sawLog {
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("bench --broker-log %s: %v\n%s", where, err, out.String())
				}
				running = false
			case <-time.After(10 * time.Millisecond):
			}
			segs, _ := filepath.Glob(filepath.Join(tmp, "dedupstream-bench-broker-*", "partitions", "bench-*", "*.dat"))
			for _, seg := range segs {
				if st, err := os.Stat(seg); err == nil && st.Size() > 0 {
					sawLog = true
				}
			}
		}
		if running {
			if err := <-exited; err != nil {
				t.Fatalf("bench --broker-log %s: %v\n%s", where, err, out.String())
			}
		}
		if sawLog != (where == "disk") {
			t.Errorf("--broker-log %s: log files under TMPDIR during the run: %t", where, sawLog)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "dedupstream-bench-broker-*")); len(left) != 0 {
			t.Errorf("--broker-log %s: %v left after the bench exited", where, left)
		}
		if !strings.Contains(out.String(), "(embedded broker, log on "+where+")") {
			t.Errorf("--broker-log %s: the header does not say where the log is:\n%s", where, out.String())
		}
		sum := summaryFields(t, out.String())
		if runtime.GOOS != "linux" { // the broker's CPU is read from /proc
			continue
		}
		figures := []string{"broker_cpu_s"}
		if latencyDocs != "0" {
			figures = append(figures, "latency_cores")
		} else if sum["latency_cores"] != "-" {
			t.Errorf("--broker-log %s: latency_cores=%q without a latency run", where, sum["latency_cores"])
		}
		for _, k := range figures {
			if v, err := strconv.ParseFloat(sum[k], 64); err != nil || v < 0 {
				t.Errorf("--broker-log %s: summary %s=%q is not a figure", where, k, sum[k])
			}
		}
		// Two processes' CPU over the run's wall time: at most every core.
		if v, err := strconv.ParseFloat(sum["latency_cores"], 64); err == nil && v > 1.1*float64(runtime.NumCPU()) {
			t.Errorf("--broker-log %s: latency_cores=%v on %d cores", where, v, runtime.NumCPU())
		}
		if n := strings.Count(out.String(), "the broker process's CPU meanwhile: "); n != len(figures) {
			t.Errorf("--broker-log %s: %d lines of the broker's CPU, want %d:\n%s", where, n, len(figures), out.String())
		}
	}
}
