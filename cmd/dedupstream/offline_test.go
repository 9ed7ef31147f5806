package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOfflineFIM runs "offline fim" on a tiny FIMI file and checks the summary
// line, the exit codes and the itemsets written with --out.
func TestOfflineFIM(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "tiny.dat")
	if err := os.WriteFile(in, []byte("1 2 3 4\n1 2 3\n1 2 5\n2 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.txt")
	f := func(wantCode int, wantOut string, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := realMain(append([]string{"offline"}, args...), &stdout, &stderr)
		if code != wantCode || !strings.Contains(stdout.String(), wantOut) {
			t.Errorf("%v: exit %d, want %d; stdout %q lacks %q; stderr %q", args, code, wantCode, stdout.String(), wantOut, stderr.String())
		}
		return stderr.String()
	}
	f(0, "closed itemsets: 4 (complete) in ", "fim", "--input", in, "--min-support", "2", "--out", out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := slices.Sorted(slices.Values(strings.Split(strings.TrimSpace(string(got)), "\n")))
	if want := []string{"1 2 (3)", "1 2 3 (2)", "2 (4)", "2 5 (2)"}; !slices.Equal(lines, want) {
		t.Errorf("--out wrote %q, want %q", lines, want)
	}
	f(0, "maximal itemsets: 2 (complete)", "fim", "--input", in, "--min-support", "2", "--maximal")
	f(0, "closed itemsets: 1 (incomplete) stopped after ", "fim", "--input", in, "--min-support", "2", "--max-itemsets", "1")
	f(0, "s: memory\n", "fim", "--input", in, "--min-support", "1", "--max-memory", "1")

	if e := f(2, "", "fim", "--min-support", "2"); !strings.Contains(e, "--input is required") {
		t.Errorf("no --input: stderr %q", e)
	}
	if e := f(2, "", "fim", "--input", in); !strings.Contains(e, "min support") {
		t.Errorf("no --min-support: stderr %q", e)
	}
	f(2, "", "nosuch")
	f(2, "")
	if e := f(1, "", "fim", "--input", filepath.Join(dir, "missing.dat"), "--min-support", "2"); !strings.Contains(e, "missing.dat") {
		t.Errorf("missing file: stderr %q", e)
	}
	bad := filepath.Join(dir, "bad.dat")
	os.WriteFile(bad, []byte("1 2\n3 four\n"), 0o644)
	if e := f(1, "", "fim", "--input", bad, "--min-support", "2"); !strings.Contains(e, "line 2") {
		t.Errorf("bad file: stderr %q", e)
	}
}
