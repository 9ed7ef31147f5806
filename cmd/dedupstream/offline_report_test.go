package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/report"
)

// runOffline runs "dedupstream offline args…" and returns its exit code, stdout and stderr.
func runOffline(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := realMain(append([]string{"offline"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestOfflineReportAndPairs streams generated pages through the filter, writes
// the report at three thresholds, and checks that the pairs of the state after
// "offline cluster --write-back" are exactly the pairs of the report's
// clustering at the configured threshold (0.8), then compares both with the
// ground truth.
func TestOfflineReportAndPairs(t *testing.T) {
	cfg, truthFile := streamGenerated(t, 200, 5, "report-test", "")
	stateDir := cfg.State.Dir
	out := t.TempDir()
	code, stdout, stderr := runOffline("report", "--state", stateDir, "--out", out, "--thresholds", "0.9,0.5,0.8", "--progress", "log")
	if code != 0 {
		t.Fatalf("offline report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Log(stdout)
	for _, want := range []string{"star: 200 documents", "\n  0.5 ", "\n  0.8 ", "\n  0.9 ", "wrote " + filepath.Join(out, "report.html")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"recluster: 200 documents in ", "cluster thresholds: 3 thresholds in "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	r := readReport(t, out)
	if got := []float64{r.Levels[0].Threshold, r.Levels[1].Threshold, r.Levels[2].Threshold}; len(r.Levels) != 3 || !slices.Equal(got, []float64{0.5, 0.8, 0.9}) {
		t.Fatalf("levels at %v", got)
	}
	// The report's clustering at 0.8, one cluster per line, is what write-back stores.
	var lines strings.Builder
	for _, c := range r.Levels[1].Clusters {
		lines.WriteString(strings.Join(c.Members, " ") + "\n")
	}
	clusters := filepath.Join(t.TempDir(), "clusters.txt")
	if err := os.WriteFile(clusters, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runOffline("cluster", "--state", stateDir, "--write-back", "--progress", "off"); code != 0 || stderr != "" {
		t.Fatalf("offline cluster: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runOffline("pairs", "--ours", stateDir, "--theirs", clusters, "--theirs-format", "clusters")
	dups := r.Levels[1].Totals.Duplicates
	if code != 0 || !strings.Contains(stdout, "only ours: 0\nonly theirs: 0\n") || dups == 0 {
		t.Errorf("state after write-back against the report (%d duplicates): exit %d\n%s\n%s", dups, code, stdout, stderr)
	}
	comparePairsWithTruth(t, stateDir, truthFile)
}

// comparePairsWithTruth: the one-sided files hold as many pairs as printed, and
// most true pairs are found.
func comparePairsWithTruth(t *testing.T, stateDir, truthFile string) {
	t.Helper()
	dir := t.TempDir()
	code, stdout, stderr := runOffline("pairs", "--ours", stateDir, "--theirs", truthFile, "--out-dir", dir)
	if code != 0 {
		t.Fatalf("pairs with the truth: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Log(stdout)
	counts := parseCounts(t, stdout)
	for file, key := range map[string]string{eval.OnlyOursFile: "only ours", eval.OnlyTheirsFile: "only theirs"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if rows := strings.Count(string(b), "\n") - 1; rows != counts[key] {
			t.Errorf("%s: %d pairs, printed %s: %d", file, rows, key, counts[key])
		}
	}
	if counts["common"] < 2*counts["only theirs"] {
		t.Errorf("found %d of the true pairs, missed %d", counts["common"], counts["only theirs"])
	}
}

// parseCounts reads the "name: n" lines of offline pairs.
func parseCounts(t *testing.T, stdout string) map[string]int {
	t.Helper()
	m := make(map[string]int)
	for line := range strings.Lines(stdout) {
		var n int
		name, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && json.Unmarshal([]byte(strings.TrimSpace(val)), &n) == nil {
			m[name] = n
		}
	}
	return m
}

func readReport(t *testing.T, dir string) *report.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.FileJSON))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{report.FileHTML, report.FileSVG, report.FilePNG, report.FileCSV} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	return &r
}

// TestOfflinePairs compares a hand-written pair list with a clustering.
func TestOfflinePairs(t *testing.T) {
	dir := t.TempDir()
	ours, theirs, out := filepath.Join(dir, "ours.csv"), filepath.Join(dir, "theirs.txt"), filepath.Join(dir, "out")
	os.WriteFile(ours, []byte("id_a,id_b\nb,a\na,c\nb,c\ne,d\na,b\n"), 0o600)
	os.WriteFile(theirs, []byte("a b c\nd\nf g\n"), 0o600)
	code, stdout, stderr := runOffline("pairs", "--ours", ours, "--theirs", theirs, "--out-dir", out)
	want := "ours:   4 pairs (pair list)\ntheirs: 4 pairs (clustering of 6 documents in 3 clusters)\n" +
		"common: 3\nonly ours: 1\nonly theirs: 1\npair precision 0.750  recall 0.750  F1 0.750 (theirs as the reference)\n"
	if code != 0 || !strings.HasPrefix(stdout, want) {
		t.Fatalf("exit %d\n%s\nwant\n%s\n%s", code, stdout, want, stderr)
	}
	for file, want := range map[string]string{eval.OnlyOursFile: "id_a,id_b\nd,e\n", eval.OnlyTheirsFile: "id_a,id_b\nf,g\n"} {
		if b, err := os.ReadFile(filepath.Join(out, file)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", file, b, err, want)
		}
	}
	f := func(wantCode int, wantErr string, args ...string) {
		t.Helper()
		code, _, stderr := runOffline(append([]string{"pairs"}, args...)...)
		if code != wantCode || !strings.Contains(stderr, wantErr) {
			t.Errorf("%v: exit %d, want %d; stderr %q lacks %q", args, code, wantCode, stderr, wantErr)
		}
	}
	f(2, "--ours and --theirs are required", "--ours", ours)
	f(1, "unknown format", "--ours", ours, "--theirs", theirs, "--theirs-format", "xml")
	f(1, "more than --max-pairs 2", "--ours", ours, "--theirs", theirs, "--max-pairs", "2")
	f(1, "not a state directory", "--ours", dir, "--theirs", theirs)
	f(1, "for a pair list pass the format pairs", "--ours", ours, "--theirs", tempFile(t, "list.txt", "a b\nb c\n"))
}
