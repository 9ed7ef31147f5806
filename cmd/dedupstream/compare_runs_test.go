package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// runPages writes testdata/runs/bees.txt and bridge.txt, two unrelated texts of about
// 120 words, as HTML pages that each end in the same run, and returns their paths.
func runPages(t *testing.T, run string) (a, b string) {
	t.Helper()
	dir := t.TempDir()
	for i, name := range []string{"bees", "bridge"} {
		text, err := os.ReadFile("../../testdata/runs/" + name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name+".html")
		page := "<html><body><p>" + string(text) + "</p>\n" + run + "\n</body></html>"
		if err := os.WriteFile(p, []byte(page), 0o600); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			a = p
		} else {
			b = p
		}
	}
	return a, b
}

// TestCompareRepeatedRuns is simhash's tf golden case through `dedupstream compare`: two
// unrelated texts (resemblance under 0.01) that end in the same run of 300
// quoted-printable "=3D", of 300 "=09", or a table of 300 identical cells must not be
// simhash near-duplicates (they were at distance 0 when features were weighted by term
// frequency, which `sketch.simhash.tf: count` still shows).
func TestCompareRepeatedRuns(t *testing.T) {
	countCfg := filepath.Join(t.TempDir(), "count.yaml")
	if err := os.WriteFile(countCfg, []byte("sketch:\n  simhash:\n    tf: count\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`\nsimhash +(simhash64-\S+) +[0-9.]+ +- +- +(\d+) +(yes|no)\n`)
	exact := regexp.MustCompile(`\n  resemblance +(0\.00\d)\n`)
	for name, run := range map[string]string{
		"=3D":   strings.Repeat("=3D", 300),
		"=09":   strings.Repeat("=09", 300),
		"table": "<table>" + strings.Repeat("<tr><td>none</td><td>none</td><td>none</td></tr>", 100) + "</table>",
	} {
		a, b := runPages(t, run)
		for _, c := range []struct {
			args              []string
			version, wantNear string
			minDist, maxDist  int
		}{
			{nil, "simhash64-k6b8-w5-tfset", "no", 16, 64},
			{[]string{"--config", countCfg}, "simhash64-k6b8-w5", "yes", 0, 6},
		} {
			var out, errb bytes.Buffer
			if err := cmdCompare(context.Background(), append(c.args, a, b), &out, &errb); err != nil {
				t.Fatalf("compare: %v %s", err, errb.String())
			}
			s := out.String()
			m := line.FindStringSubmatch(s)
			if m == nil || !exact.MatchString(s) {
				t.Fatalf("run %s: no simhash line, or exact resemblance not under 0.01:\n%s", name, s)
			}
			d, _ := strconv.Atoi(m[2])
			if m[1] != c.version || m[3] != c.wantNear || d < c.minDist || d > c.maxDist {
				t.Errorf("run %s: simhash %s distance %d near %s; want %s at distance %d–%d, near %s:\n%s",
					name, m[1], d, m[3], c.version, c.minDist, c.maxDist, c.wantNear, s)
			}
		}
	}
}

// TestCompareModMShortPage is the golden case of mod-m's floor through `dedupstream
// compare`: a short page (66 shingles: 41 words of bees.txt and a 28-word list footer)
// shares only the footer with a long page (about 1,400 shingles). The short page's
// mod-25 sample holds a few values at most, too few to estimate its containment, which
// compare shows as "few"; the pair is not near.
func TestCompareModMShortPage(t *testing.T) {
	const footer = "This message was sent to the members of the valley gardening circle. " +
		"To leave the list or change how often you hear from us, reply with the word stop."
	text, err := os.ReadFile("../../testdata/runs/bees.txt")
	if err != nil {
		t.Fatal(err)
	}
	var long []string
	for i := range 1400 {
		long = append(long, "w"+strconv.Itoa((i*7919)%100003))
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "short.txt"), filepath.Join(dir, "long.txt")
	short := strings.Join(strings.Fields(string(text))[:41], " ") + " " + footer
	if err := os.WriteFile(a, []byte(short), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(strings.Join(long, " ")+" "+footer), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := cmdCompare(context.Background(), []string{a, b}, &out, &errb); err != nil {
		t.Fatalf("compare: %v %s", err, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "shingles w5: A 66,") || !regexp.MustCompile(`\nmodm +modm25-n64-w5 +0\.0\d\d +few +0\.0\d\d +- +no\n`).MatchString(s) {
		t.Errorf("short page with a shared footer against a long page:\n%s", s)
	}
}
