package explain

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
)

var text = []byte("the committee met on tuesday to discuss the budget for the coming year and agreed to raise spending on roads schools and hospitals by four percent")

// TestWriteExactIdentical: a text against itself has every exact measure 1,
// and the tf-idf cosine asks for a vocabulary it was not given.
func TestWriteExactIdentical(t *testing.T) {
	var c lsh.Config
	c.EnsureDefaults()
	var out bytes.Buffer
	WriteExact(&out, c.Shingling(), nil, text, text)
	for _, m := range []string{"resemblance", "containment A in B", "containment B in A", "weighted Jaccard \\(word tf\\)", "edit similarity \\(words\\)"} {
		if !regexp.MustCompile(`(?m)^  ` + m + ` +1\.000$`).MatchString(out.String()) {
			t.Errorf("no %q of 1.000 in:\n%s", m, out.String())
		}
	}
	if !strings.Contains(out.String(), "tf-idf cosine") || !strings.Contains(out.String(), "(needs --vocab)") {
		t.Errorf("tf-idf cosine without a vocabulary not marked:\n%s", out.String())
	}
}

// TestWriteEstimatesEveryMethod: a row per method, the configured one
// starred, those that need a vocabulary marked, and every other method
// finding a text near itself.
func TestWriteEstimatesEveryMethod(t *testing.T) {
	var c lsh.Config
	c.EnsureDefaults()
	var out bytes.Buffer
	if err := WriteEstimates(&out, c, nil, text, text); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = line
		}
	}
	for _, name := range lsh.MethodNames() {
		row, ok := rows[name]
		switch {
		case !ok:
			t.Errorf("no row of %s in:\n%s", name, out.String())
		case strings.Contains(row, "(needs --vocab)"):
		case !strings.HasSuffix(strings.TrimSpace(row), "yes"):
			t.Errorf("%s does not find a text near itself: %q", name, row)
		}
	}
	if !regexp.MustCompile(`(?m)^` + c.Method + ` \*`).MatchString(out.String()) {
		t.Errorf("the configured method %s is not starred:\n%s", c.Method, out.String())
	}
}
