package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/lsh"
)

func TestRecordConfig(t *testing.T) {
	t.Setenv("DEDUPSTREAM_RECORD_ENABLED", "true")
	f := func(what, want string, args ...string) {
		t.Helper()
		fs, load := flagSet("run", os.Stderr)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if _, err := load(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("record mode with %s: %v", what, err)
		}
	}
	f("format raw", "decode.format: record mode", "--format", "raw")
	f("simhash", "sketch.method: record mode", "--config", tempFile(t, "c.yaml", "sketch:\n  method: simhash\n"))
	f("stemming", "sketch.stopwords/stem: record mode", "--config", tempFile(t, "s.yaml", "sketch:\n  stem: auto\n"))
	f("verify", "sketch.verify.method: record mode", "--config", tempFile(t, "v.yaml", "sketch:\n  verify:\n    method: full\n"))
	f("a field of kind date", "record.fields[0].kind", "--config", tempFile(t, "d.yaml", "record:\n  fields:\n    - {name: t, kind: date}\n"))
}

func tempFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func recordMsg(t *testing.T, rec map[string]any) kafka.Message {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Message{Key: []byte(rec["id"].(string)), Value: b}
}

// TestRunRecordMode runs the filter in record mode through the embedded
// broker, then reopens its state with other fields (refused) and compares
// two stored records field by field.
func TestRunRecordMode(t *testing.T) {
	addr, cfg := testBroker(t, 1, "record") // one partition: p1 arrives first
	cfg.Record.Enabled = true
	cfg.Sketch.Method = "" // as in a file that enables record mode and names no method
	cfg.EnsureDefaults()
	if cfg.Sketch.Method != lsh.MethodMinHash {
		t.Fatalf("record mode without sketch.method: method %q, want minhash", cfg.Sketch.Method)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	runRecords(t, addr, cfg)

	other := cfg
	other.Record.Fields = append(append([]lsh.RecordField(nil), cfg.Record.Fields...), lsh.RecordField{Name: "doi", Path: "doi", Kind: lsh.KindExact, Weight: 1})
	if a, err := newFilter(other, zaptest.NewLogger(t)); err == nil {
		closeFilter(t, a)
		t.Fatal("state built with four record fields opened with five")
	}

	var stdout, stderr bytes.Buffer
	t.Setenv("DEDUPSTREAM_RECORD_ENABLED", "true")
	if err := cmdCompare(context.Background(), []string{"--state", cfg.State.Dir, "p1", "p2"}, &stdout, &stderr); err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr.String())
	}
	for _, s := range []string{"title     text     3       1.000", "authors   authors  3       1.000", "missing in B", "near-duplicate"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("compare output lacks %q:\n%s", s, stdout.String())
		}
	}
}

// TestRunRecordModeSharded runs record mode with the band-sharded index
// (index.shards 4, front and shard server in one instance): the shards
// verify with the record method's field-by-field comparison, as one
// instance does, and give the same verdicts.
func TestRunRecordModeSharded(t *testing.T) {
	addr, cfg := testBroker(t, 1, "record-sharded")
	cfg.Record.Enabled = true
	cfg.Sketch.Method = ""
	cfg.Index.Shards = 4
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	runRecords(t, addr, cfg)

	// state collect of a record-mode filter: the record method cannot read
	// its keys back from a sketch, so they are the union of the probes' keys.
	cfg.State.Dir = t.TempDir()
	var out, errb bytes.Buffer
	t.Setenv("DEDUPSTREAM_KAFKA_BROKERS", addr)
	t.Setenv("DEDUPSTREAM_KAFKA_GROUP", cfg.Kafka.Group)
	t.Setenv("DEDUPSTREAM_RECORD_ENABLED", "true")
	if err := cmdStateCollect(context.Background(), []string{"--state", cfg.State.Dir}, &out, &errb); err != nil {
		t.Fatalf("state collect: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "collected 3 documents") {
		t.Errorf("state collect: %s, want 3 documents (p4 was dead-lettered)", out.String())
	}
	var stdout, stderr bytes.Buffer
	if err := cmdCompare(context.Background(), []string{"--state", cfg.State.Dir, "p1", "p2"}, &stdout, &stderr); err != nil {
		t.Fatalf("compare in the collected state: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "near-duplicate") {
		t.Errorf("compare p1 p2 in the collected state:\n%s", stdout.String())
	}
}

// runRecords produces four structured records — p2 a reformatted p1, p3
// another paper with p1's title, p4 with a title of the wrong type — runs
// the filter in record mode over them, and checks the verdicts: p2 a
// near-duplicate of p1, p3 unique, p4 dead-lettered. It stops and closes the
// filter.
func runRecords(t *testing.T, addr string, cfg Config) {
	t.Helper()
	title := "Closed itemsets as clusters of near duplicate web pages"
	msgs := []kafka.Message{
		recordMsg(t, map[string]any{"id": "p1", "title": title, "authors": []string{"Dmitry Ignatov", "Sergei Kuznetsov"}, "year": 2008,
			"abstract": "frequent closed itemsets of fingerprints give clusters of similar documents independent of input order"}),
		recordMsg(t, map[string]any{"id": "p2", "title": strings.ToUpper(title), "authors": "Kuznetsov, S.; Ignatov D.", "year": "2008-11-02"}),
		recordMsg(t, map[string]any{"id": "p3", "title": title, "authors": []string{"Jane Roe"}, "year": 1999}),
		recordMsg(t, map[string]any{"id": "p4", "title": 42}),
	}
	if err := produce(context.Background(), addr, "pages", msgs); err != nil {
		t.Fatal(err)
	}
	a, stop := startFilter(t, cfg)
	waitRecords(t, a, len(msgs))
	stop()
	closeFilter(t, a)

	verdicts := map[string]string{}
	for _, m := range readTopic(t, addr, "pages.out") {
		h := headerMap(m)
		verdicts[string(m.Key)] = h["dedup.verdict"] + " " + h["dedup.of"]
		if !strings.HasPrefix(h["dedup.sketch"], "record32-") {
			t.Errorf("%s: dedup.sketch %q", m.Key, h["dedup.sketch"])
		}
	}
	want := map[string]string{"p1": "unique ", "p2": "near_duplicate p1", "p3": "unique "}
	for k, v := range want {
		if verdicts[k] != v {
			t.Errorf("%s: %q, want %q", k, verdicts[k], v)
		}
	}
	if len(verdicts) != 3 {
		t.Errorf("forwarded %v, want p1..p3 (p4 dead-lettered)", verdicts)
	}
}
