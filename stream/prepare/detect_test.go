package prepare

import (
	"bytes"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzDetect: the detector reads any bytes without panicking; its
// confidence is in [0, 1]; what it detects is a candidate, and a value it
// is confident of, up to detectMax bytes, decodes in that encoding with no
// byte the encoding cannot read; it answers the same twice.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"", "caf\xe9", "\xcc\xee\xf1\xea\xe2\xe0", "\xed\xcf\xd3\xcb\xd7\xc1", "\x93\xfa\x96\x7b\x8c\xea",
		"\xa4\xb3\xa4\xf3", "\xc7\xd1\xb1\xb9", "\xc4\xe3\xba\xc3", "\xa7\x41\xa6\x6e", "\x84\x40\x84\x70", "a\x97b", "\xff\xfe\xfd"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		d := detectCharset(v)
		if again := detectCharset(v); again.name != d.name || again.confidence != d.confidence {
			t.Fatalf("detected %s %v, then %s %v", d.name, d.confidence, again.name, again.confidence)
		}
		if d.confidence < 0 || d.confidence > 1 {
			t.Fatalf("confidence %v", d.confidence)
		}
		if d.enc == nil {
			return
		}
		if !slices.ContainsFunc(candidates, func(c candidate) bool { return c.name == d.name }) {
			t.Fatalf("detected %q, no candidate", d.name)
		}
		if !d.confident() || len(v) > detectMax {
			return
		}
		text, ierr := reading{enc: d.enc, name: d.name, from: "detection"}.decode(v)
		if ierr != nil || !utf8.Valid(text) {
			t.Fatalf("detected %s (%.2f), which does not read it: %v", d.name, d.confidence, ierr)
		}
	})
}

// TestDetectSameText: when readings are the same text, the first candidate
// of them is named — windows-1252 for an English page whose only non-ASCII
// bytes are quotes and dashes, which windows-1251 reads alike.
func TestDetectSameText(t *testing.T) {
	v := []byte("He said \x93yes\x94 \x97 and then, after a while, \x93no\x94; nobody knew why. It\x92s the way of things.")
	if d := detectCharset(v); d.name != "windows-1252" || !d.confident() {
		t.Errorf("detected %s at %.2f, want windows-1252", d.name, d.confidence)
	}
}

// TestDetectLongValue: past detectMax only a prefix is read, cut where no
// character of a multi-byte encoding is split.
func TestDetectLongValue(t *testing.T) {
	unit := []byte("\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x96\x7b\x82\xf0\x93\xc7\x82\xde\x81\x42\n") // 日本語の本を読む。
	v := bytes.Repeat(unit, detectMax/len(unit)+100)
	if d := detectCharset(v); d.name != "shift_jis" || !d.confident() {
		t.Errorf("detected %s at %.2f, want shift_jis", d.name, d.confidence)
	}
}
