package stream

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"
)

func testDecoder(format Format) decoder {
	var c Config
	c.Decode.Format = format
	c.EnsureDefaults()
	return decoder{cfg: c.Decode}
}

func looksHTML(b []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(b), []byte("<")) }

func TestDecode(t *testing.T) {
	f := func(format Format, key, value string, want Record, wantClass string) {
		t.Helper()
		m := &kafka.Message{Topic: "pages", Partition: 3, Offset: 42, Key: []byte(key), Value: []byte(value)}
		got, err := testDecoder(format).decode(m, looksHTML)
		switch {
		case wantClass != "":
			if err == nil || err.Class != "dedupstream."+wantClass || err.Stage != StageDecode || err.Msg == "" {
				t.Errorf("decode(%q) error = %v, want class %s", value, err, wantClass)
			}
		case err != nil:
			t.Errorf("decode(%q): %v", value, err)
		case got.ID != want.ID || got.URL != want.URL || got.Title != want.Title || string(got.Body) != string(want.Body) || got.HTML != want.HTML:
			t.Errorf("decode(%q) = %+v, want %+v", value, got, want)
		}
	}
	f(FormatAuto, "k", "plain page text", Record{ID: "k", Body: []byte("plain page text")}, "")
	f(FormatAuto, "", "plain page text", Record{ID: "pages/3/42", Body: []byte("plain page text")}, "")
	f(FormatAuto, "k", "<p>hi</p>", Record{ID: "k", Body: []byte("<p>hi</p>"), HTML: true}, "")
	f(FormatAuto, "k", `{"id":"a1","url":"http://x/","title":"T","body":"text"}`, Record{ID: "a1", URL: "http://x/", Title: "T", Body: []byte("text")}, "")
	f(FormatAuto, "k", `{"id":17,"html":"<b>x</b>","body":"ignored"}`, Record{ID: "17", Body: []byte("<b>x</b>"), HTML: true}, "")
	f(FormatAuto, "k", `{"body":"text"}`, Record{ID: "k", Body: []byte("text")}, "")
	f(FormatAuto, "k", `{"id":null,"url":null,"body":"text"}`, Record{ID: "k", Body: []byte("text")}, "")
	f(FormatAuto, "k", `{"id": broken`, Record{ID: "k", Body: []byte(`{"id": broken`)}, "") // not JSON: the page itself
	f(FormatAuto, "k", `[1,2,3]`, Record{ID: "k", Body: []byte(`[1,2,3]`)}, "")
	f(FormatRaw, "k", `{"id":"a1","body":"text"}`, Record{ID: "k", Body: []byte(`{"id":"a1","body":"text"}`)}, "")
	f(FormatJSON, "k", `{"id": broken`, Record{}, "MalformedJSON")
	f(FormatJSON, "k", `plain`, Record{}, "MalformedJSON")
	f(FormatAuto, "k", "", Record{}, "EmptyValue")
	f(FormatAuto, "k", "a\x00b", Record{}, "BinaryValue")
	f(FormatAuto, "k", "caf\xe9", Record{}, "InvalidUTF8")
	f(FormatAuto, "k", `{"id":{"x":1},"body":"t"}`, Record{}, "WrongFieldType")
	f(FormatAuto, "k", `{"id":"a","url":["x"],"body":"t"}`, Record{}, "WrongFieldType")
	f(FormatAuto, "k", `{"id":"a","body":true}`, Record{}, "WrongFieldType")
	f(FormatAuto, "k", `{"id":"a","title":"t"}`, Record{}, "MissingField")
	f(FormatAuto, "k", `{"id":"a","body":""}`, Record{}, "MissingField")
	f(FormatAuto, "k", strings.Repeat("x", 1<<20+1), Record{}, "Oversized")
}

// FuzzDecode: any value decodes to a record or a classified error, never a
// panic; a decoded record has an id and valid UTF-8 text.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "text", "<p>x</p>", `{"id":1,"body":"x"}`, `{"html":"<b>", "id": "z"}`, "\xff\xfe", "a\x00", `{"id":[]}`} {
		f.Add([]byte(s), []byte("key"))
	}
	f.Fuzz(func(t *testing.T, value, key []byte) {
		m := &kafka.Message{Topic: "t", Key: key, Value: value}
		for _, format := range []Format{FormatAuto, FormatRaw, FormatJSON} {
			rec, err := testDecoder(format).decode(m, looksHTML)
			if err != nil {
				if err.Class == "" || err.Msg == "" || err.Stage != StageDecode {
					t.Fatalf("unclassified error %+v", err)
				}
				continue
			}
			if rec.ID == "" || len(rec.Body) == 0 {
				t.Fatalf("record without id or body: %+v", rec)
			}
			if !rec.HTML && format != FormatJSON && !utf8.Valid(rec.Body) {
				t.Fatalf("invalid UTF-8 body accepted")
			}
		}
	})
}
