package clean

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/clean")

// goldenDir holds hand-written pages and their expected cleaned form.
const goldenDir = "../../testdata/clean"

// cleanFile cleans a testdata page the way a caller would: as HTML when it
// looks like HTML, else as plain text.
func cleanFile(t testing.TB, c *Cleaner, name string) (string, Result) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if isHTML := LooksLikeHTML(page); isHTML != strings.HasSuffix(name, ".html") {
		t.Fatalf("%s: LooksLikeHTML = %v", name, isHTML)
	}
	var out []byte
	var res Result
	if LooksLikeHTML(page) {
		out, res = c.HTML(nil, page)
	} else {
		out, res = c.Text(nil, page)
	}
	return string(out), res
}

// goldenForm is the golden-file rendering of a result: a short header, a
// blank line, then the text exactly as produced.
func goldenForm(out string, res Result) []byte {
	return fmt.Appendf(nil, "title: %s\ntokens: %d\ntruncated: %v\n\n%s\n", res.Title, res.Tokens, res.Truncated, out)
}

func TestGolden(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(goldenDir, "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{})
	n := 0
	for _, path := range names {
		name := filepath.Base(path)
		if filepath.Ext(name) == ".golden" {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			out, res := cleanFile(t, c, name)
			checkInvariants(t, out, res, DefaultMaxTokens)
			got := goldenForm(out, res)
			golden := filepath.Join(goldenDir, strings.TrimSuffix(name, filepath.Ext(name))+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", name, golden, got, want)
			}
		})
	}
	if n < 5 {
		t.Fatalf("found %d golden inputs in %s, want at least 5", n, goldenDir)
	}
}
