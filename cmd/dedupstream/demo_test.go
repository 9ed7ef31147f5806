package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDemo runs the demo command end to end and checks its summary adds up:
// every record is counted once, the six bad records are dead-lettered, and
// generated exact and mirror copies land in their origin's cluster.
func TestDemo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := realMain([]string{"demo", "--pages", "400", "--examples", "3"}, &out, &errb); code != 0 {
		t.Fatalf("demo exited %d: %s", code, errb.String())
	}
	s := out.String()
	t.Log(s)
	num := func(label string) int {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `\s+(\d+)`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("summary has no %q line", label)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	in, uniq, near, exact, dead := num("records in"), num("unique"), num("near_duplicate"), num("exact_duplicate"), num("dead-lettered")
	if in != 406 || uniq+near+exact+dead != in || dead != 6 {
		t.Errorf("records in %d = unique %d + near %d + exact %d + dead %d?", in, uniq, near, exact, dead)
	}
	for _, kind := range []string{"exact", "mirror"} {
		m := regexp.MustCompile(`(?m)^\s+` + kind + `\s+(\d+)\s+\d+ \(\s*[\d.]+%\)\s+(\d+) `).FindStringSubmatch(s)
		if m == nil || m[1] != m[2] {
			t.Errorf("%s copies not all in their origin's cluster: %v", kind, m)
		}
	}
	if n := strings.Count(s, "bad-json "); n != 1 {
		t.Errorf("dead letter bad-json listed %d times", n)
	}
	for _, class := range []string{"EmptyValue", "BinaryValue", "InvalidUTF8", "WrongFieldType", "Oversized", "NoText"} {
		if !strings.Contains(s, "dedupstream."+class) {
			t.Errorf("dead letters lack %s", class)
		}
	}
}
