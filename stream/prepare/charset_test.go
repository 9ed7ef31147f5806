package prepare

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/segmentio/kafka-go"
	"golang.org/x/text/encoding/htmlindex"
)

// TestDecodeCharset: each way a value's encoding is found, in browsers'
// order, and each way it fails. wantCharset is the dedup.charset header.
// Detection is on unless a case is marked noDetect.
func TestDecodeCharset(t *testing.T) {
	const noDetect = "\x00no detect"
	f := func(format Format, value, ctype, want, wantCharset, wantClass string) {
		t.Helper()
		d := testDecoder(format)
		if v, ok := strings.CutSuffix(value, noDetect); ok {
			value, d = v, testDecoderDetect(format, false)
		}
		m := &kafka.Message{Topic: "pages", Key: []byte("k"), Value: []byte(value)}
		if ctype != "" {
			name, v, _ := strings.Cut(ctype, ": ")
			m.Headers = []kafka.Header{{Key: "trace", Value: []byte("koi8-r")}, {Key: name, Value: []byte(v)}}
		}
		rec, err := d.decode(m)
		switch {
		case wantClass != "":
			if err == nil || err.Class != "dedupstream."+wantClass || err.Stage != StageDecode {
				t.Errorf("decode(%q, %q) = %q, %v; want class %s", value, ctype, rec.Body, err, wantClass)
			}
		case err != nil:
			t.Errorf("decode(%q, %q): %v", value, ctype, err)
		case string(rec.Body) != want || rec.CharsetHeader() != wantCharset:
			t.Errorf("decode(%q, %q) = %q in %q, want %q in %q", value, ctype, rec.Body, rec.CharsetHeader(), want, wantCharset)
		}
	}
	const moskva1251, moskvaKOI8 = "\xcc\xee\xf1\xea\xe2\xe0", "\xed\xcf\xd3\xcb\xd7\xc1" // Москва
	// Valid UTF-8 naming nothing is UTF-8, its <meta> notwithstanding.
	f(FormatRaw, "Москва", "", "Москва", "", "")
	f(FormatRaw, `<meta charset="koi8-r"><p>Москва`, "", `<meta charset="koi8-r"><p>Москва`, "", "")
	// A header names it: a media type's parameter or a bare label, any case.
	f(FormatRaw, moskva1251, "Content-Type: text/plain; charset=windows-1251", "Москва", "windows-1251", "")
	f(FormatRaw, moskva1251, `content-type: text/html;charset="CP1251"`, "Москва", "windows-1251", "")
	f(FormatRaw, moskvaKOI8, "Content-Type: koi8-r", "Москва", "koi8-r", "")
	f(FormatRaw, "caf\xe9", "Content-Type: text/html; charset=ISO-8859-1", "café", "windows-1252", "")
	f(FormatRaw, "Москва", "Content-Type: text/html; charset=utf-8", "Москва", "", "")
	f(FormatRaw, "Москва", "Content-Type: text/html", "Москва", "", "")
	f(FormatRaw, "x\x00y\x00", "Content-Type: utf-16le", "xy", "utf-16le", "") // UTF-16 has NUL bytes and is no binary
	// A header beats <meta>, and a header's UTF-8 must be UTF-8.
	f(FormatRaw, `<meta charset="koi8-r">`+moskva1251, "Content-Type: windows-1251", `<meta charset="koi8-r">Москва`, "windows-1251", "")
	f(FormatRaw, `<meta charset="koi8-r">`+moskvaKOI8, "Content-Type: text/html; charset=utf-8", "", "", "InvalidUTF8")
	// A byte-order mark beats everything.
	f(FormatRaw, "\xef\xbb\xbfМосква", "Content-Type: koi8-r", "Москва", "", "")
	f(FormatRaw, "\xff\xfe\x1c\x04\x3e\x04", "Content-Type: koi8-r", "Мо", "utf-16le", "")
	f(FormatRaw, "\xfe\xff\x04\x1c\x04\x3e", "", "Мо", "utf-16be", "")
	f(FormatRaw, "\xff\xfe\xfd\xffa\x00", "", "\ufffda", "utf-16le", "") // a U+FFFD it holds is text
	f(FormatRaw, "\xef\xbb\xbfcaf\xe9", "", "", "", "InvalidUTF8")
	f(FormatRaw, "\xff\xfea\x00\x00\xd8", "", "", "", "InvalidCharset") // a lone surrogate
	f(FormatRaw, "\xff\xfea\x00\x00\x00", "", "", "", "BinaryValue")
	f(FormatRaw, "\xff\xfe", "", "", "", "EmptyValue")
	// <meta> of a page that is not UTF-8, in its first kilobyte.
	f(FormatRaw, `<meta charset="koi8-r"><p>`+moskvaKOI8, "", "<meta charset=\"koi8-r\"><p>Москва", "koi8-r", "")
	f(FormatRaw, `<meta http-equiv="content-type" content="text/html; charset=windows-1252">caf`+"\xe9", "", `<meta http-equiv="content-type" content="text/html; charset=windows-1252">café`, "windows-1252", "")
	f(FormatRaw, strings.Repeat(" ", 1024)+`<meta charset="koi8-r">`+moskvaKOI8+noDetect, "", "", "", "InvalidUTF8")
	// Past the first kilobyte a <meta> is not read: the bytes are detected.
	f(FormatRaw, strings.Repeat(" ", 1024)+`<meta charset="koi8-r">`+moskvaKOI8, "", strings.Repeat(" ", 1024)+`<meta charset="koi8-r">Москва`, "koi8-r; detected", "")
	// Undeclared bytes are detected, or with decode.detect off not guessed
	// at; bytes the named charset lacks are refused.
	f(FormatRaw, "caf\xe9", "", "café", "windows-1252; detected", "")
	f(FormatRaw, moskva1251, "", "Москва", "windows-1251; detected", "")
	f(FormatRaw, "caf\xe9"+noDetect, "", "", "", "InvalidUTF8")
	f(FormatRaw, "caf\xe9", "Content-Type: text/html; charset=x-unknown", "café", "windows-1252; detected", "")
	f(FormatRaw, "caf\xe9"+noDetect, "Content-Type: text/html; charset=x-unknown", "", "", "InvalidUTF8")
	f(FormatRaw, "\xe9\x9c\xc3\xb1\xd2\x8b\xfa", "", "", "", "InvalidUTF8")                  // no text: not confident
	f(FormatRaw, "caf\xe9", "Content-Type: text/html; charset=utf-8", "", "", "InvalidUTF8") // a named UTF-8 is never second-guessed
	f(FormatRaw, "café", "Content-Type: text/html; charset=x-unknown", "café", "", "")
	f(FormatRaw, "a\x98b", "Content-Type: windows-1251", "", "", "InvalidCharset") // 0x98 is unassigned
	f(FormatRaw, "\x81\x20", "Content-Type: shift_jis", "", "", "InvalidCharset")
	f(FormatRaw, "hello", "Content-Type: iso-2022-kr", "", "", "InvalidCharset") // browsers refuse it
	f(FormatRaw, "a\x00b", "Content-Type: windows-1251", "", "", "BinaryValue")
	// JSON records: UTF-8 ones are text already, whatever they name.
	f(FormatAuto, `{"charset":"koi8-r","body":"Москва"}`, "Content-Type: windows-1251", "Москва", "", "")
	f(FormatAuto, `{"charset":"koi8-r","body":"`+moskvaKOI8+`"}`, "", "Москва", "koi8-r", "")
	f(FormatAuto, `{"content_type":"text/html; charset=windows-1251","body":"`+moskva1251+`"}`, "", "Москва", "windows-1251", "")
	f(FormatAuto, `{"charset":"koi8-r","body":"`+moskva1251+`"}`, "Content-Type: application/json; charset=windows-1251", "Москва", "windows-1251", "")
	f(FormatAuto, `{"html":"<meta charset=\"koi8-r\"><p>`+moskvaKOI8+`"}`, "", `<meta charset="koi8-r"><p>Москва`, "koi8-r", "")
	f(FormatAuto, `{"body":"`+moskva1251+`"}`, "", "Москва", "windows-1251; detected", "")
	f(FormatAuto, `{"body":"`+moskva1251+`"}`+noDetect, "", "", "", "InvalidUTF8")
	f(FormatAuto, `{"x`+"\xff"+`":1,"body":"Москва"}`, "", "", "", "InvalidUTF8")
	f(FormatAuto, `{"body":"Москва`+"\ufffd"+`"}`, "", "Москва\ufffd", "", "") // U+FFFD that is text
	f(FormatAuto, `{"charset":"utf-8","body":"`+moskva1251+`"}`, "", "", "", "InvalidUTF8")
	f(FormatJSON, "\xff\xfe{\x00}\x00", "", "", "", "MissingField") // UTF-16 JSON is parsed
	f(FormatJSON, utf16be(`{"body":"Москва"}`), "", "Москва", "utf-16be", "")
	// Names are found in the bytes, escaped as JSON writers escape them, and
	// only where they are fields.
	f(FormatAuto, `{"content_type":"text\/html; charset=koi8-r","body":"`+moskvaKOI8+`"}`, "", "Москва", "koi8-r", "")
	f(FormatAuto, `{"html":"\u003cmeta charset=\"koi8-r\"\u003e`+moskvaKOI8+`"}`, "", "<meta charset=\"koi8-r\">Москва", "koi8-r", "")
	f(FormatAuto, `{"body":"a \"charset\": \"koi8-r\" `+moskvaKOI8+`"}`+noDetect, "", "", "", "InvalidUTF8")
	f(FormatAuto, `{"title":"charset", "charset" : "koi8-r", "body":"`+moskvaKOI8+`"}`, "", "Москва", "koi8-r", "")
	// A page that starts with "{" is still a page in format auto.
	f(FormatAuto, "{"+moskva1251+"}", "Content-Type: windows-1251", "{Москва}", "windows-1251", "")
	f(FormatAuto, "{"+moskva1251+"}"+noDetect, "", "", "", "InvalidUTF8")
	f(FormatAuto, "{"+moskva1251+"}", "", "{Москва}", "windows-1251; detected", "")
}

func utf16be(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r>>8), byte(r))
	}
	return "\xfe\xff" + string(b)
}

// TestCharsetConfig: the header and field names come from decode.charset;
// an empty list names nothing.
func TestCharsetConfig(t *testing.T) {
	const koi8 = "\xed\xcf\xd3\xcb\xd7\xc1"
	f := func(cs CharsetConfig, headers []kafka.Header, value, wantCharset string) {
		t.Helper()
		var c Config
		c.Charset = cs
		off := false
		c.Detect = &off // what names the charset, not what detection finds
		c.EnsureDefaults()
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		rec, err := decoder{cfg: c}.decode(&kafka.Message{Value: []byte(value), Headers: headers})
		switch {
		case wantCharset == "" && (err == nil || err.Class != "dedupstream.InvalidUTF8"):
			t.Errorf("%+v %v: %q, %v; want InvalidUTF8", cs, headers, rec.Body, err)
		case wantCharset != "" && (err != nil || rec.Charset != wantCharset || string(rec.Body) != "Москва"):
			t.Errorf("%+v %v: %q in %q, %v; want %s", cs, headers, rec.Body, rec.Charset, err, wantCharset)
		}
	}
	ct := []kafka.Header{{Key: "Content-Type", Value: []byte("koi8-r")}}
	xc := []kafka.Header{{Key: "X-Page-Charset", Value: []byte("koi8-r")}}
	f(CharsetConfig{}, ct, koi8, "koi8-r")
	f(CharsetConfig{Headers: []string{}}, ct, koi8, "")
	f(CharsetConfig{}, xc, koi8, "")
	f(CharsetConfig{Headers: []string{"x-page-charset"}}, xc, koi8, "koi8-r")
	f(CharsetConfig{}, nil, `{"charset":"koi8-r","body":"`+koi8+`"}`, "koi8-r")
	f(CharsetConfig{Fields: []string{}}, nil, `{"charset":"koi8-r","body":"`+koi8+`"}`, "")
	f(CharsetConfig{Fields: []string{"enc"}}, nil, `{"enc":"koi8-r","body":"`+koi8+`"}`, "koi8-r")

	var c Config
	c.Charset = CharsetConfig{Headers: []string{" "}, Fields: []string{""}}
	c.EnsureDefaults()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "decode.charset.headers[0]") || !strings.Contains(err.Error(), "decode.charset.fields[0]") {
		t.Errorf("empty charset names: %v", err)
	}
}

// TestDecodeUTF8IsNotCopied: the fast path hands on the message's own bytes.
func TestDecodeUTF8IsNotCopied(t *testing.T) {
	v := []byte("<html><body><p>Страница в UTF-8</p></body></html>")
	for _, hs := range [][]kafka.Header{nil, {{Key: "Content-Type", Value: []byte("text/html; charset=UTF-8")}}} {
		rec, err := testDecoder(FormatAuto).decode(&kafka.Message{Value: v, Headers: hs})
		if err != nil || unsafe.SliceData(rec.Body) != unsafe.SliceData(v) || len(rec.Body) != len(v) {
			t.Errorf("headers %v: body copied or cut (%v)", hs, err)
		}
	}
}

// charsetGolden are the pages of testdata/charset: each hand-written in
// UTF-8 (NAME.src.EXT) and committed in its legacy encoding (NAME.EXT, by
// gen.go there). named is how the record names the encoding when the page
// does not (a Content-Type header); charset is what decode reports; word is
// a word of the page as its encoding writes it, from the code charts — so
// the files are held to the real encodings, not only to golang.org/x/text.
var charsetGolden = []struct {
	file, named, charset, word string
}{
	{"ru-windows-1251.html", "", "windows-1251", "\xcc\xee\xf1\xea\xe2\xe0"},                                // <meta http-equiv>; Москва
	{"ru-koi8-r.html", "", "koi8-r", "\xed\xcf\xd3\xcb\xd7\xc1"},                                            // <meta charset>; Москва
	{"fr-iso-8859-1.html", "", "windows-1252", "caf\xe9"},                                                   // WHATWG reads ISO-8859-1 as windows-1252, its superset
	{"ja-shift_jis.html", "", "shift_jis", "\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x96"},                          // 日本語の本
	{"uk-utf-16le.html", "", "utf-16le", "\xff\xfe<\x00h\x00"},                                              // byte-order mark, then <h
	{"ru-windows-1251.txt", "text/plain; charset=windows-1251", "windows-1251", "\xcb\xe5\xf1\xed\xee\xe9"}, // Лесной
}

// readGolden reads a golden page and its UTF-8 source.
func readGolden(t *testing.T, file string) (page, src []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "charset")
	page, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Ext(file)
	if src, err = os.ReadFile(filepath.Join(dir, strings.TrimSuffix(file, ext)+".src"+ext)); err != nil {
		t.Fatal(err)
	}
	return page, src
}

// TestCharsetGolden decodes each golden page to exactly its UTF-8 source: as
// a raw value, and as a JSON record written in the page's encoding (with a
// content_type field where the page names no charset). Without its header,
// the page that names no charset of its own is detected, or dead-lettered
// with detection off.
func TestCharsetGolden(t *testing.T) {
	for _, g := range charsetGolden {
		t.Run(g.file, func(t *testing.T) {
			page, src := readGolden(t, g.file)
			if !bytes.Contains(page, []byte(g.word)) {
				t.Fatalf("%s does not hold %q: not %s", g.file, g.word, g.charset)
			}
			var hs []kafka.Header
			if g.named != "" {
				hs = []kafka.Header{{Key: "Content-Type", Value: []byte(g.named)}}
			}
			rec, err := testDecoder(FormatAuto).decode(&kafka.Message{Value: page, Headers: hs})
			if err != nil || !bytes.Equal(rec.Body, src) || rec.Charset != g.charset || rec.HTML != strings.HasSuffix(g.file, ".html") {
				t.Fatalf("raw: %v, charset %q, HTML %v, body equal to the source: %v", err, rec.Charset, rec.HTML, bytes.Equal(rec.Body, src))
			}
			rec, err = testDecoder(FormatAuto).decode(&kafka.Message{Value: goldenJSON(t, g.file, g.charset, g.named, src)})
			if err != nil || string(rec.Body) != string(src) || rec.Charset != g.charset {
				t.Fatalf("JSON: %v, charset %q, body equal to the source: %v", err, rec.Charset, string(rec.Body) == string(src))
			}
			if g.named == "" {
				return
			}
			if _, err := testDecoderDetect(FormatAuto, false).decode(&kafka.Message{Value: page}); err == nil || err.Class != "dedupstream.InvalidUTF8" {
				t.Errorf("with no header and detection off: %v, want InvalidUTF8", err)
			}
			rec, err = testDecoder(FormatAuto).decode(&kafka.Message{Value: page})
			if err != nil || !bytes.Equal(rec.Body, src) || rec.CharsetHeader() != g.charset+"; detected" {
				t.Errorf("with no header: %v, %q, body equal to the source: %v; want it detected", err, rec.CharsetHeader(), bytes.Equal(rec.Body, src))
			}
		})
	}
}

// goldenJSON is a JSON record of a page, written in charset as a crawler
// that does not convert would write it.
func goldenJSON(t *testing.T, file, charset, named string, src []byte) []byte {
	t.Helper()
	fields := map[string]string{"id": "golden", "body": string(src)}
	if strings.HasSuffix(file, ".html") {
		fields = map[string]string{"id": "golden", "html": string(src)}
	}
	if named != "" {
		fields["content_type"] = named
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		t.Fatal(err)
	}
	e, err := htmlindex.Get(charset)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.NewEncoder().Bytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if charset == "utf-16le" {
		out = append([]byte("\xff\xfe"), out...)
	}
	return out
}
