package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// comparePages writes a 400-word text page, an HTML page holding words
// 100–199 of it, and returns their paths.
func comparePages(t *testing.T) (long, short string) {
	t.Helper()
	words := make([]string, 400)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", (i*7919)%1009)
	}
	dir := t.TempDir()
	long, short = filepath.Join(dir, "long.txt"), filepath.Join(dir, "short.html")
	html := "<html><body><nav>menu</nav><p>" + strings.Join(words[100:200], " ") + "</p></body></html>"
	if err := os.WriteFile(long, []byte(strings.Join(words, " ")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte(html), 0o600); err != nil {
		t.Fatal(err)
	}
	return long, short
}

func TestCompareFiles(t *testing.T) {
	long, short := comparePages(t)
	var out, errb bytes.Buffer
	if err := cmdCompare(context.Background(), []string{short, long}, &out, &errb); err != nil {
		t.Fatalf("compare: %v %s", err, errb.String())
	}
	s := out.String()
	// 100 words give 96 shingles, all among the long page's 396.
	for _, want := range []string{
		`shingles w5: A 96, B 396, shared 96`,
		`resemblance +0\.242\n`, `containment A in B +1\.000\n`, `containment B in A +0\.242\n`,
		`weighted Jaccard \(word tf\) +0\.250\n`, `edit similarity \(words\) +0\.250\n`, `tf-idf cosine +- \(needs --vocab\)`,
		`full +full-w5-k1024 +0\.242 +1\.000 +0\.242 +- +no\n`,
		`minhash +minhash128-b10r5-w5-16bit `, `oph \* +oph128-b10r5-w5-16bit `, `simhash +simhash64-k6b8-w5-tfset +0\.\d+ +- +- +\d+ +no\n`,
		`imatch +- +\(needs --vocab\)`,
	} {
		if !regexp.MustCompile(want).MatchString(s) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	for _, name := range lsh.MethodNames() {
		if !strings.Contains(s, "\n"+name) {
			t.Errorf("no line for method %s", name)
		}
	}
}

// TestCompareStored compares a file with a document found in state by id.
func TestCompareStored(t *testing.T) {
	long, short := comparePages(t)
	dir := filepath.Join(t.TempDir(), "state")
	var cfg Config
	cfg.Sketch.Method = lsh.MethodModM
	cfg.State.Dir = dir
	cfg.EnsureDefaults()
	m, err := cfg.NewMethod()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(long)
	if err != nil {
		t.Fatal(err)
	}
	text, _, err := prepareFile(cfg, m)(b)
	if err != nil {
		t.Fatal(err)
	}
	sk, keys := m.Sketch(&lsh.Scratch{}, text, nil, nil)
	st, err := state.Open(state.Options{Dir: dir, SketchVersion: m.Version(), SetKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put([]state.Doc{{Seq: 1, ID: "doc-long", URL: "http://x/long", Sketch: sk, Bands: keys}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"--state", dir, "--threshold", "0.8"}
	cfgPath := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfgPath, []byte("sketch:\n  method: modm\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args = append(args, "--config", cfgPath, short, "http://x/long")
	if err := cmdCompare(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("compare: %v %s", err, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "seq 1, id doc-long") || !regexp.MustCompile(`modm \* +modm25-n64-w5 +0\.\d+ +1\.000 +0\.\d+ +- +no\n`).MatchString(s) {
		t.Errorf("compare with a stored document:\n%s", s)
	}
	out.Reset()
	err = cmdCompare(context.Background(), []string{"--state", dir, short, "http://x/long"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "differs from configured") {
		t.Errorf("compare with minhash against a modm state: %v, want a sketch mismatch", err)
	}
}
