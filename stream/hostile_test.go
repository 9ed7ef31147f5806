package stream_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// hostile is one hostile input and what must become of it: a dead letter of
// the given class, or (class "") a verdict on the output topic.
type hostile struct {
	name  string
	msg   kafka.Message
	class string
}

// hostileInputs are the messages a real feed delivers sooner or later. They
// are built here, deterministically, rather than stored as blobs.
func hostileInputs() []hostile {
	r := rand.New(rand.NewPCG(1, 2))
	blob := make([]byte, 4096)
	for i := range blob {
		blob[i] = byte(r.UintN(256))
	}
	deep := strings.Repeat("<b>", 100_000) + "words buried one hundred thousand elements deep" + strings.Repeat("</b>", 100_000)
	manyHeaders := make([]kafka.Header, 180)
	for i := range manyHeaders {
		manyHeaders[i] = kafka.Header{Key: "h" + strconv.Itoa(i), Value: bytes.Repeat([]byte{'x'}, 5000)}
	}
	nestedJSON := strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)
	text := func(s string) []byte { return []byte(s) }
	return []hostile{
		{"invalid-utf8", kafka.Message{Value: text("plain text with a Latin-1 byte: caf\xe9")}, ""}, // detected: windows-1252
		{"undetectable-text", kafka.Message{Value: text("\xe9\x9c\xc3\xb1\xd2\x8b\xfa \xaf\x81\xfe")}, "dedupstream.InvalidUTF8"},
		{"nul", kafka.Message{Value: text("text with a NUL\x00 inside")}, "dedupstream.BinaryValue"},
		{"blob", kafka.Message{Value: blob}, "dedupstream.BinaryValue"},
		{"oversized", kafka.Message{Value: bytes.Repeat([]byte("big "), 230_000)}, "dedupstream.Oversized"},
		{"huge-headers", kafka.Message{Value: text("a small page"), Headers: manyHeaders}, "dedupstream.Oversized"},
		{"empty", kafka.Message{}, "dedupstream.EmptyValue"},
		{"whitespace", kafka.Message{Value: text(" \n\t  \r\n ")}, "dedupstream.NoText"},
		{"boilerplate", kafka.Message{Value: text("<html><body><nav>Home | News | Sport</nav><footer>© 2026 Example</footer></body></html>")}, "dedupstream.NoText"},
		{"json-wrong-id", kafka.Message{Value: text(`{"id": [1], "body": "text"}`)}, "dedupstream.WrongFieldType"},
		{"json-wrong-body", kafka.Message{Value: text(`{"id": "x", "body": {"a": 1}}`)}, "dedupstream.WrongFieldType"},
		{"json-missing-body", kafka.Message{Value: text(`{"id": "only-an-id", "url": "http://example.com/"}`)}, "dedupstream.MissingField"},
		{"deep-html", kafka.Message{Value: text(deep)}, ""},
		{"one-word", kafka.Message{Value: bytes.Repeat([]byte("spam "), 100_000)}, ""},
		{"one-word-again", kafka.Message{Value: bytes.Repeat([]byte("spam "), 60_000)}, ""},
		{"nested-json", kafka.Message{Value: text(nestedJSON)}, ""}, // too deep for a record: read as the page itself
		{"big-json-id", kafka.Message{Value: text(`{"id": 123456789012345678901234567890, "body": "a record whose id is a very large number"}`)}, ""},
		{"control-chars", kafka.Message{Value: text("bell\a and escape\x1b[31m red \u200b zero width\ufeff bom")}, ""},
		{"koi8-r-by-meta", kafka.Message{Value: text("<html><meta charset=\"koi8-r\"><p>\xf3\xd4\xd2\xc1\xce\xc9\xc3\xc1 \xd7 koi8-r")}, ""},
		{"utf16-lone-surrogate", kafka.Message{Value: text("\xff\xfeh\x00i\x00\x00\xd8")}, "dedupstream.InvalidCharset"},
		{"json-latin1-unnamed", kafka.Message{Value: text("{\"id\": \"j\", \"body\": \"caf\xe9 cr\xe8me\"}")}, ""},                                                // detected: windows-1252
		{"unknown-charset", kafka.Message{Value: text("caf\xe9"), Headers: []kafka.Header{{Key: "Content-Type", Value: text("text/html; charset=klingon")}}}, ""}, // as if unnamed: detected
	}
}

// TestHostileInput streams every hostile input through the pipeline between two
// good pages: each ends as exactly one dead letter of its class or one verdict,
// and the stream goes on to the last page.
func TestHostileInput(t *testing.T) {
	h := newHarness(t, 1)
	h.cfg.Decode.MaxMessageBytes = 900_000
	cases := hostileInputs()
	msgs := []kafka.Message{{Key: []byte("first"), Value: []byte("the first good page of the stream says hello")}}
	for _, c := range cases {
		c.msg.Key = []byte(c.name)
		msgs = append(msgs, c.msg)
	}
	msgs = append(msgs, kafka.Message{Key: []byte("last"), Value: []byte("the last good page arrives after every hostile one")})
	for _, m := range msgs {
		h.produce(m) // one at a time: each must fit the broker's request limit alone
	}
	if _, err := h.runUntil(int64(len(msgs)), nil); err != nil {
		t.Fatal(err)
	}
	got := make(map[string][]output)
	for _, o := range append(h.readAll(topicOut), h.readAll(topicDLQ)...) {
		got[o.key] = append(got[o.key], o)
	}
	for _, c := range cases {
		checkHostile(t, c, got[c.name], h.cfg.Decode.MaxMessageBytes)
	}
	for _, k := range []string{"first", "last"} {
		if len(got[k]) != 1 || got[k][0].headers[stream.HeaderVerdict] != "unique" {
			t.Errorf("%s: %+v", k, got[k])
		}
	}
	if of := got["one-word-again"]; len(of) == 1 && of[0].headers[stream.HeaderOf] != "one-word" {
		t.Errorf("a page of one repeated word is not a duplicate of the other: %v", of[0].headers)
	}
}

func checkHostile(t *testing.T, c hostile, outs []output, maxBytes int) {
	t.Helper()
	if len(outs) != 1 {
		t.Errorf("%s: %d outcomes, want 1", c.name, len(outs))
		return
	}
	o := outs[0]
	if c.class == "" {
		if o.topic != topicOut || o.headers[stream.HeaderVerdict] == "" {
			t.Errorf("%s: want a verdict, got %s %v", c.name, o.topic, o.headers[stream.HeaderErrClass])
		}
		return
	}
	if o.topic != topicDLQ || o.headers[stream.HeaderErrClass] != c.class {
		t.Errorf("%s: got %s class %q (%s), want dead letter %s", c.name, o.topic,
			o.headers[stream.HeaderErrClass], o.headers[stream.HeaderErrMessage], c.class)
	}
	size := len(o.key) + len(o.value)
	for k, v := range o.headers {
		size += len(k) + len(v)
	}
	if size > maxBytes {
		t.Errorf("%s: dead letter of %d bytes exceeds the %d cap", c.name, size, maxBytes)
	}
	if c.name == "huge-headers" && o.headers[stream.HeaderDroppedHeaders] != "180" {
		t.Errorf("huge-headers: %s = %q", stream.HeaderDroppedHeaders, o.headers[stream.HeaderDroppedHeaders])
	}
}
