package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"
)

// TestGenThenEval runs dedupstream gen into files and dedupstream eval over them.
func TestGenThenEval(t *testing.T) {
	dir := t.TempDir()
	pages, truth, pairs := filepath.Join(dir, "p.jsonl"), filepath.Join(dir, "t.tsv"), filepath.Join(dir, "pairs.tsv")
	var out, errb bytes.Buffer
	if rc := realMain([]string{"gen", "--pages", "300", "--seed", "2", "--edit-rate", "0.01",
		"--out", pages, "--truth", truth, "--pairs", pairs}, &out, &errb); rc != 0 {
		t.Fatalf("gen exited %d: %s", rc, errb.String())
	}
	b, err := os.ReadFile(pairs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 50 || !strings.HasPrefix(lines[0], "copy\torigin\tkind\tresemblance") {
		t.Errorf("pairs file has %d lines, header %q", len(lines), lines[0])
	}
	out.Reset()
	if rc := realMain([]string{"eval", "--pages", pages, "--truth", truth, "--methods", "minhash,full",
		"--thresholds", "0.8,0.9"}, &out, &errb); rc != 0 {
		t.Fatalf("eval exited %d: %s", rc, errb.String())
	}
	// Each of 2 methods × 2 thresholds has a row in the pair table and one in the
	// contained table.
	if n := strings.Count(out.String(), "\n| minhash |") + strings.Count(out.String(), "\n| full |"); n != 8 ||
		!strings.Contains(out.String(), "\ncontained: ") {
		t.Errorf("eval printed %d method rows, want 4 in each of two tables:\n%s", n, out.String())
	}
	if rc := realMain([]string{"eval", "--pages", pages}, &out, &errb); rc == 0 {
		t.Error("eval without --truth succeeded")
	}
	if rc := realMain([]string{"gen", "--pages", "10"}, &out, &errb); rc == 0 {
		t.Error("gen with nothing to write succeeded")
	}
}

// TestGenToTopic runs dedupstream gen into a topic of the embedded broker and reads
// the topic back with kafka-go: one record per page of the truth file, keyed by the
// page id, labelled in its headers and its JSON value alike.
func TestGenToTopic(t *testing.T) {
	addr, _ := testBroker(t, 2, "unused")
	truth := filepath.Join(t.TempDir(), "t.tsv")
	var out, errb bytes.Buffer
	if rc := realMain([]string{"gen", "--pages", "120", "--seed", "4", "--kinds", "all",
		"--brokers", addr, "--topic", "pages", "--truth", truth}, &out, &errb); rc != 0 {
		t.Fatalf("gen exited %d: %s", rc, errb.String())
	}
	want := map[string]string{} // id → origin
	b, err := os.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		id, origin, _ := strings.Cut(line, "\t")
		want[id] = origin
	}
	got := readCount(t, addr, "pages", len(want))
	kinds := map[string]int{}
	for _, m := range got {
		id := string(m.Key)
		var rec struct{ ID, Origin, Kind, HTML, Body string }
		if err := json.Unmarshal(m.Value, &rec); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		h := headerMap(m)
		if rec.ID != id || want[id] != rec.Origin || h["gen.origin"] != rec.Origin || h["gen.kind"] != rec.Kind {
			t.Errorf("record %s: value id %s origin %s kind %s, headers %v, truth origin %q", id, rec.ID, rec.Origin, rec.Kind, h, want[id])
		}
		if (rec.Kind == "plaintext") != (rec.Body != "" && rec.HTML == "") {
			t.Errorf("record %s (%s): html %d bytes, body %d bytes", id, rec.Kind, len(rec.HTML), len(rec.Body))
		}
		kinds[rec.Kind]++
		delete(want, id)
	}
	if len(want) > 0 {
		t.Errorf("%d pages of the truth file not in the topic", len(want))
	}
	if len(kinds) < 6 {
		t.Errorf("kinds in the topic: %v", kinds)
	}
}

// readCount reads every record of topic and fails unless there are n.
func readCount(t *testing.T, addr, topic string, n int) []kafka.Message {
	t.Helper()
	out := readTopic(t, addr, topic)
	if len(out) != n {
		t.Fatalf("read %d records from %s, want %d", len(out), topic, n)
	}
	return out
}

// TestGenThroughFilter sends gen's pages of every kind through the filter on one
// partition (so in generation order) and scores the output by the gen.* headers the
// filter passed through: every copy whose cleaned text equals its original's
// (mirror, exact, noisy, plaintext) must be tagged a duplicate of a page of its own
// true cluster.
func TestGenThroughFilter(t *testing.T) {
	addr, cfg := testBroker(t, 1, "gen-filter")
	var out, errb bytes.Buffer
	if rc := realMain([]string{"gen", "--pages", "300", "--seed", "6", "--kinds", "all", "--copy-rate", "0.5",
		"--brokers", addr, "--topic", "pages"}, &out, &errb); rc != 0 {
		t.Fatalf("gen exited %d: %s", rc, errb.String())
	}
	a, stop := startFilter(t, cfg)
	waitRecords(t, a, 300)
	stop()
	closeFilter(t, a)
	origin := map[string]string{} // id → gen.origin
	type tagged struct{ kind, verdict, of string }
	var recs []tagged
	for _, m := range readCount(t, addr, "pages.out", 300) {
		h := headerMap(m)
		origin[string(m.Key)] = h["gen.origin"]
		recs = append(recs, tagged{h["gen.kind"], h["dedup.verdict"], h["dedup.of"]})
		if id := string(m.Key); h["gen.kind"] != "original" && h["dedup.verdict"] != "unique" && origin[h["dedup.of"]] != h["gen.origin"] {
			t.Errorf("%s (%s of %s) is a %s of %s, of another cluster", id, h["gen.kind"], h["gen.origin"], h["dedup.verdict"], h["dedup.of"])
		}
	}
	found := map[string][2]int{}
	for _, r := range recs {
		f := found[r.kind]
		f[1]++
		if r.verdict == "exact_duplicate" || r.verdict == "near_duplicate" {
			f[0]++
		}
		found[r.kind] = f
	}
	for _, k := range []string{"mirror", "exact", "noisy", "plaintext"} {
		if f := found[k]; f[1] < 5 || f[0] != f[1] {
			t.Errorf("%s copies: %d of %d tagged duplicate", k, f[0], f[1])
		}
	}
	t.Logf("tagged duplicate / pages, by kind: %v", found)
}
