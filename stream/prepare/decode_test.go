package prepare

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/segmentio/kafka-go"
	"golang.org/x/net/html/charset"
)

// decode is decodeInto with a buffer of its own, as the tests use it.
func (d decoder) decode(m *kafka.Message) (Record, *InputError) {
	var buf []byte
	return d.decodeInto(m, &buf)
}

func testDecoder(format Format) decoder {
	return testDecoderDetect(format, true)
}

// testDecoderDetect is testDecoder with decode.detect set to detect.
func testDecoderDetect(format Format, detect bool) decoder {
	var c Config
	c.Format = format
	c.Detect = &detect
	c.EnsureDefaults()
	return decoder{cfg: c}
}

func TestDecode(t *testing.T) {
	f := func(format Format, key, value string, want Record, wantClass string) {
		t.Helper()
		m := &kafka.Message{Topic: "pages", Partition: 3, Offset: 42, Key: []byte(key), Value: []byte(value)}
		got, err := testDecoder(format).decode(m)
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
	f(FormatAuto, "k", "caf\xe9", Record{ID: "k", Body: []byte("café")}, "") // detected: windows-1252
	f(FormatAuto, "k", "\xe9\x9c\xc3\xb1\xd2\x8b\xfa", Record{}, "InvalidUTF8")
	f(FormatAuto, "k", `{"id":{"x":1},"body":"t"}`, Record{}, "WrongFieldType")
	f(FormatAuto, "k", `{"id":"a","url":["x"],"body":"t"}`, Record{}, "WrongFieldType")
	f(FormatAuto, "k", `{"id":"a","body":true}`, Record{}, "WrongFieldType")
	f(FormatAuto, "k", `{"id":"a","title":"t"}`, Record{}, "MissingField")
	f(FormatAuto, "k", `{"id":"a","body":""}`, Record{}, "MissingField")
	f(FormatAuto, "k", strings.Repeat("x", 1<<20+1), Record{}, "Oversized")
}

// FuzzDecode: any value, with any Content-Type header, decodes to a record or
// a classified error, never a panic. A decoded record has an id and a body
// of valid UTF-8, reports a charset only when it was not read as UTF-8, and
// decodes the same way twice (a replay must get the same text). A raw value
// that is UTF-8 and names nothing is its own body, not a copy.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "text", "<p>x</p>", `{"id":1,"body":"x"}`, `{"html":"<b>", "id": "z"}`, "\xff\xfe", "a\x00", `{"id":[]}`,
		"\xff\xfeh\x00i\x00", "\xfe\xff\x00h\x00i", "\xef\xbb\xbf<p>x", `<meta charset="koi8-r"><p>\xed\xcf`, "caf\xe9",
		`{"charset":"windows-1251","body":"\xcc\xee"}`, `{"html":"<meta charset=\"koi8-r\">\xed"}`, "\x93\xfa\x95\x5c"} {
		f.Add([]byte(s), []byte("key"), []byte(""))
	}
	f.Add([]byte("\xcc\xee\xf1"), []byte("k"), []byte("text/html; charset=windows-1251"))
	f.Add([]byte("\x93\xfa\x95\x5c"), []byte("k"), []byte("shift_jis"))
	f.Add([]byte("a\x00b\x00"), []byte("k"), []byte("utf-16le"))
	f.Add([]byte(`{"body":"\xcc"}`), []byte("k"), []byte("application/json; charset=cp1251"))
	f.Fuzz(func(t *testing.T, value, key, ctype []byte) {
		m := &kafka.Message{Topic: "t", Key: key, Value: value}
		if len(ctype) > 0 {
			m.Headers = []kafka.Header{{Key: "Content-Type", Value: ctype}}
		}
		for _, format := range []Format{FormatAuto, FormatRaw, FormatJSON} {
			rec, err := testDecoder(format).decode(m)
			again, err2 := testDecoder(format).decode(m)
			if !reflect.DeepEqual(rec, again) || !reflect.DeepEqual(err, err2) {
				t.Fatalf("%v: decoded twice, differently: %+v %v, then %+v %v", format, rec, err, again, err2)
			}
			if err != nil {
				if err.Class == "" || err.Msg == "" || err.Stage != StageDecode {
					t.Fatalf("unclassified error %+v", err)
				}
				continue
			}
			checkDecoded(t, format, m, rec)
		}
	})
}

func checkDecoded(t *testing.T, format Format, m *kafka.Message, rec Record) {
	t.Helper()
	if rec.ID == "" || len(rec.Body) == 0 || !utf8.Valid(rec.Body) {
		t.Fatalf("%v: record without id or body, or not UTF-8: %+v", format, rec)
	}
	if rec.Charset == "utf-8" || rec.Charset != "" && !knownCharset(rec.Charset) {
		t.Fatalf("%v: reported charset %q", format, rec.Charset)
	}
	plain := len(m.Headers) == 0 && utf8.Valid(m.Value) && !bytes.HasPrefix(m.Value, []byte("\xef\xbb\xbf"))
	if plain && format == FormatRaw && (rec.Charset != "" || unsafe.SliceData(rec.Body) != unsafe.SliceData(m.Value) || len(rec.Body) != len(m.Value)) {
		t.Fatalf("UTF-8 naming nothing was not taken as it is: %q in %q", rec.Body, rec.Charset)
	}
}

// knownCharset reports whether name is an encoding's WHATWG name.
func knownCharset(name string) bool {
	_, canonical := charset.Lookup(name)
	return canonical == name
}
