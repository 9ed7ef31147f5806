package clean

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkInvariants fails t unless out and res meet the output contract.
func checkInvariants(t testing.TB, out string, res Result, maxTokens int) {
	t.Helper()
	if err := invariantErr(out, res, maxTokens); err != nil {
		t.Fatal(err)
	}
}

// invariantErr checks the output contract: valid UTF-8, words separated by
// single spaces with none at either end, Tokens counting the words, the cap
// respected, and the text (and title) a fixed point of Text.
func invariantErr(out string, res Result, maxTokens int) error {
	if !utf8.ValidString(out) {
		return fmt.Errorf("output is not valid UTF-8: %q", out)
	}
	if strings.Contains(out, "  ") || strings.HasPrefix(out, " ") || strings.HasSuffix(out, " ") {
		return fmt.Errorf("output has a stray space: %q", out)
	}
	words := 0
	if out != "" {
		words = strings.Count(out, " ") + 1
	}
	if res.Tokens != words {
		return fmt.Errorf("Tokens = %d, output has %d words: %q", res.Tokens, words, out)
	}
	if words > maxTokens {
		return fmt.Errorf("%d words, cap is %d", words, maxTokens)
	}
	c := New(Options{})
	if again, res2 := c.Text(nil, []byte(out)); string(again) != out || res2.Tokens != words {
		return fmt.Errorf("Text is not idempotent on its output:\n in: %q\nout: %q", out, again)
	}
	if again, _ := c.Text(nil, []byte(res.Title)); string(again) != res.Title {
		return fmt.Errorf("title is not normalised: %q, Text gives %q", res.Title, again)
	}
	return nil
}

// addSeeds adds the golden pages and a few hostile snippets to the corpus.
func addSeeds(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(goldenDir, "*.*"))
	for _, p := range paths {
		if filepath.Ext(p) == ".golden" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(0))
	}
	for _, s := range []string{
		"", "<", "</", "<b>e</b>\u0301", "ё\u0300", "<script>never closed",
		"<title>t", "<nav><p>a</div>b", "<td>a</td><td>b</td>", "a\u00ad\u0301",
		"<div/><svg/>x", "<plaintext><b>", "\xff\xfe<p>\x00x", "ᄀ<i>ᅡ</i>",
	} {
		f.Add([]byte(s), uint16(3))
	}
}

func FuzzHTML(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, page []byte, maxTokens uint16) {
		c := New(Options{MaxTokens: int(maxTokens)})
		out, res := c.HTML(nil, page)
		checkInvariants(t, string(out), res, c.maxTokens)
	})
}

func FuzzText(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, text []byte, maxTokens uint16) {
		c := New(Options{MaxTokens: int(maxTokens)})
		out, res := c.Text(nil, text)
		checkInvariants(t, string(out), res, c.maxTokens)
		if !res.Truncated {
			whole, _ := New(Options{}).Text(nil, text)
			if string(whole) != string(out) {
				t.Fatalf("untruncated output %q differs from uncapped %q", out, whole)
			}
		}
	})
}
