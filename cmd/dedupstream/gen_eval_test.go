package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if n := strings.Count(out.String(), "\n| minhash |") + strings.Count(out.String(), "\n| full |"); n != 4 {
		t.Errorf("eval printed %d method rows, want 4:\n%s", n, out.String())
	}
	if rc := realMain([]string{"eval", "--pages", pages}, &out, &errb); rc == 0 {
		t.Error("eval without --truth succeeded")
	}
	if rc := realMain([]string{"gen", "--pages", "10"}, &out, &errb); rc == 0 {
		t.Error("gen with nothing to write succeeded")
	}
}
