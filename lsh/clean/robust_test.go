package clean

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestHTMLDeepNesting(t *testing.T) {
	const depth = 100000
	for _, tag := range []string{"div", "b", "nav"} {
		var b bytes.Buffer
		for range depth {
			b.WriteString("<" + tag + ">x ")
		}
		b.WriteString("end")
		for range depth {
			b.WriteString("</" + tag + ">")
		}
		b.WriteString(" after")
		out, res := New(Options{MaxTokens: 2 * depth}).HTML(nil, b.Bytes())
		want := strings.Repeat("x ", depth) + "end after"
		if tag == "nav" {
			want = "after"
		}
		if string(out) != want {
			t.Errorf("%s: got %d bytes, %d tokens; want %d bytes", tag, len(out), res.Tokens, len(want))
		}
	}
}

func TestHTMLDeepUnclosed(t *testing.T) {
	page := strings.Repeat("<div><span>", 100000) + "deep" + strings.Repeat("</p>", 100000) + " tail"
	out, _ := New(Options{}).HTML(nil, []byte(page))
	if string(out) != "deep tail" {
		t.Fatalf("got %q", out)
	}
}

func TestRepeatedWord(t *testing.T) {
	c := New(Options{})
	text := strings.Repeat("Word ", 100000)
	out, res := c.Text(nil, []byte(text))
	if res.Tokens != 100000 || res.Truncated || len(out) != len(text)-1 {
		t.Fatalf("Text: %d tokens, truncated %v, %d bytes", res.Tokens, res.Truncated, len(out))
	}
	out, res = c.HTML(nil, []byte("<p>"+text+"more</p>"))
	if res.Tokens != 100000 || !res.Truncated || string(out[len(out)-5:]) != " word" {
		t.Fatalf("HTML: %d tokens, truncated %v", res.Tokens, res.Truncated)
	}
}

func TestHugeAttribute(t *testing.T) {
	page := `<p>before</p><div data-x="` + strings.Repeat("a&amp;b ", 1<<20) + `">inside</div>after`
	out, _ := New(Options{}).HTML(nil, []byte(page))
	if string(out) != "before inside after" {
		t.Fatalf("got %q", out)
	}
}

func TestHugeWord(t *testing.T) {
	// One 3 MB run of non-ASCII letters is cut into bounded segments
	// without splitting the word.
	word := strings.Repeat("жй", 1<<19) + strings.Repeat("日", 1<<19)
	out, res := New(Options{}).Text(nil, []byte(word))
	if res.Tokens != 1 || string(out) != word {
		t.Fatalf("got %d tokens, %d bytes; want 1 token, %d bytes", res.Tokens, len(out), len(word))
	}
}

func TestScriptNeverClosed(t *testing.T) {
	page := "<html><body><p>Visible text.</p><script>var s = '" + strings.Repeat("<p>junk ", 10000)
	out, res := New(Options{}).HTML(nil, []byte(page))
	if string(out) != "visible text" {
		t.Fatalf("got %d tokens: %.80q", res.Tokens, out)
	}
}

func TestBinaryInput(t *testing.T) {
	b := make([]byte, 1<<16)
	for i := range b {
		b[i] = byte(i*7919 + i>>8)
	}
	c := New(Options{})
	out, res := c.HTML(nil, b)
	checkInvariants(t, string(out), res, DefaultMaxTokens)
	out, res = c.Text(nil, b)
	checkInvariants(t, string(out), res, DefaultMaxTokens)
}

func TestConcurrentUse(t *testing.T) {
	c := New(Options{})
	var pages [][]byte
	var want []string
	for _, name := range []string{"news_en.html", "news_ru.html", "shop.html", "broken.html"} {
		page, err := os.ReadFile(filepath.Join(goldenDir, name))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := c.HTML(nil, page)
		pages, want = append(pages, page), append(want, string(out))
	}
	var wg sync.WaitGroup
	bad := make(chan int, 8)
	for g := range 8 {
		wg.Go(func() {
			var dst []byte
			for i := range 50 {
				k := (g + i) % len(pages)
				if dst, _ = c.HTML(dst[:0], pages[k]); string(dst) != want[k] {
					bad <- k
					return
				}
			}
		})
	}
	wg.Wait()
	close(bad)
	for k := range bad {
		t.Errorf("page %d: concurrent result differs", k)
	}
}
