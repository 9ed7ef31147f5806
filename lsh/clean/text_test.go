package clean

import (
	"strings"
	"testing"
	"unicode"
)

func TestText(t *testing.T) {
	c := New(Options{})
	f := func(in, want string) {
		t.Helper()
		got, res := c.Text(nil, []byte(in))
		if string(got) != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
		if n := len(strings.Fields(want)); res.Tokens != n || res.Truncated {
			t.Errorf("Text(%q) result = %+v, want %d tokens, not truncated", in, res, n)
		}
	}
	f("", "")
	f("Hello, World!", "hello world")
	f("  leading and   trailing  ", "leading and trailing")
	f("tabs\tnew\nlines\r\nCR", "tabs new lines cr")
	f("don't stop-me now", "don t stop me now")
	f("e-mail: a.b@example.com (2024)", "e mail a b example com 2024")
	f("...!!!---???", "")
	f("«»—–…“”‘’", "")
	f("ﬁnance ﬂow", "finance flow")                     // NFKC ligatures
	f("１２３ ＡＢＣ", "123 abc")                             // full-width
	f("x² ½ ①", "x2 1 2 1")                             // compatibility digits
	f("Ⅻ века", "xii века")                             // roman numeral
	f("Ёлка ЁЖИК ёж", "елка ежик еж")                   // ё → е
	f("йод ЙОД", "йод йод")                             // й is kept
	f("и\u0306од", "йод")                               // decomposed й composes
	f("е\u0308ж", "еж")                                 // decomposed ё still folds
	f("ё\u0300", "ѐ")                                   // fold then recompose
	f("Café CAFE\u0301", "café café")                   // composed either way
	f("Straße STRASSE ẞ", "straße strasse ß")           // ß is not folded to ss
	f("İstanbul ISPARTA ılık", "istanbul isparta ılık") // locale-free lowering
	f("ΣΊΣΥΦΟΣ", "σίσυφοσ")                             // no final-sigma rule
	f("Donau\u00addampf", "donaudampf")                 // soft hyphen is invisible
	f("a\u200bb", "a b")                                // zero-width space separates
	f("bad\xffbytes\xc3", "bad bytes")                  // invalid UTF-8 separates
	f("nul\x00byte\x01ctl\x7f", "nul byte ctl")         // control chars separate
	f("\u0301lone mark", "lone mark")                   // a mark cannot start a word
	f("日本語のテキスト", "日本語のテキスト")                           // letters with no spaces stay one word
	f("हिन्दी", "हिन्दी")                               // spacing marks stay in the word
	f("Привет, мир! Как дела?", "привет мир как дела")
	f("mixed Латиница and кириллица", "mixed латиница and кириллица")
}

func TestTextMaxTokens(t *testing.T) {
	c := New(Options{MaxTokens: 3})
	f := func(in, want string, truncated bool) {
		t.Helper()
		got, res := c.Text(nil, []byte(in))
		if string(got) != want || res.Truncated != truncated {
			t.Errorf("Text(%q) = %q %+v, want %q truncated=%v", in, got, res, want, truncated)
		}
	}
	f("one two three", "one two three", false)
	f("one two three four five", "one two three", true)
	f("раз два три четыре", "раз два три", true)
	f("one, two; three!!! ...", "one two three", false)
}

func TestTextAppends(t *testing.T) {
	c := New(Options{})
	dst := []byte("prefix|")
	got, _ := c.Text(dst, []byte(" A b "))
	if string(got) != "prefix|a b" {
		t.Fatalf("got %q, want %q", got, "prefix|a b")
	}
}

func TestLowerTab(t *testing.T) {
	for c := range 128 {
		r := rune(c)
		want := byte(0)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			want = byte(unicode.ToLower(r))
		}
		if lowerTab[c] != want {
			t.Errorf("lowerTab[%#x] = %#x, want %#x", c, lowerTab[c], want)
		}
	}
}

func TestLooksLikeHTML(t *testing.T) {
	f := func(in string, want bool) {
		t.Helper()
		if got := LooksLikeHTML([]byte(in)); got != want {
			t.Errorf("LooksLikeHTML(%q) = %v, want %v", in, got, want)
		}
	}
	f("<!DOCTYPE html><html>", true)
	f("\xef\xbb\xbf \n <html lang=ru>", true)
	f("<div class=x>hi</div>", true)
	f("<P>para", true)
	f("<?xml version=\"1.0\"?>\n<html>", true)
	f("plain text <p> later", false)
	f("<3 you", false)
	f("<john@example.com> wrote:\n> hi", false)
	f("<pre-formatted>", false)
	f("", false)
	f("<", false)
	f("<"+strings.Repeat("x", 2000)+"<p>", false)

	page := []byte("\xef\xbb\xbf<!doctype html><html><body><p>hi</p></body></html>")
	if n := testing.AllocsPerRun(100, func() { LooksLikeHTML(page) }); n != 0 {
		t.Errorf("LooksLikeHTML allocates %v times", n)
	}
}
