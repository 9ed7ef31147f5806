package stream_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// TestBadInputGoesToDeadLetter: each kind of bad input lands on the dead-letter
// topic with its original key, value and headers and Kafka-Connect error
// headers, and the good records around it still get verdicts.
func TestBadInputGoesToDeadLetter(t *testing.T) {
	h := newHarness(t, 1)
	h.cfg.Decode.MaxMessageBytes = 64 << 10
	good := func(id, text string) kafka.Message {
		return kafka.Message{Key: []byte(id), Value: []byte("<html><body><p>" + text + "</p></body></html>")}
	}
	trace := []kafka.Header{{Key: "trace-id", Value: []byte("abc123")}}
	bad := []struct {
		msg   kafka.Message
		class string
		stage string
	}{
		{kafka.Message{Key: []byte("empty")}, "dedupstream.EmptyValue", prepare.StageDecode},
		{kafka.Message{Key: []byte("binary"), Value: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), Headers: trace}, "dedupstream.BinaryValue", prepare.StageDecode},
		{kafka.Message{Key: []byte("undetectable"), Value: []byte("\xe9\x9c\xc3\xb1\xd2\x8b\xfa")}, "dedupstream.InvalidUTF8", prepare.StageDecode}, // no text in any encoding
		{kafka.Message{Key: []byte("wrongtype"), Value: []byte(`{"id": "wrongtype", "html": 42}`)}, "dedupstream.WrongFieldType", prepare.StageDecode},
		{kafka.Message{Key: []byte("nofield"), Value: []byte(`{"id": "nofield", "title": "only a title"}`)}, "dedupstream.MissingField", prepare.StageDecode},
		{kafka.Message{Key: []byte("oversized"), Value: bytes.Repeat([]byte("word "), 20000)}, "dedupstream.Oversized", prepare.StageDecode},
		{kafka.Message{Key: []byte("boilerplate"), Value: []byte("<html><nav>Home | News</nav><footer>(c) 2026</footer></html>")}, "dedupstream.NoText", prepare.StageClean},
	}
	msgs := []kafka.Message{good("good-1", "the first good page has enough words to be a page of its own")}
	for _, b := range bad {
		msgs = append(msgs, b.msg)
	}
	msgs = append(msgs, good("good-2", "a second good page arrives after all the bad ones and is still decided"))
	h.process(msgs...)
	dlq := h.readAll(topicDLQ)
	if len(dlq) != len(bad) {
		t.Fatalf("dead-letter topic has %d records, want %d", len(dlq), len(bad))
	}
	for i, b := range bad {
		checkDeadLetter(t, dlq[i], b.msg, b.class, b.stage, int64(i+1), h.cfg.Decode.MaxMessageBytes)
	}
	outs := h.readAll(topicOut)
	if len(outs) != 2 || outs[0].key != "good-1" || outs[1].key != "good-2" {
		t.Fatalf("output has %d records, want good-1 and good-2: %+v", len(outs), outs)
	}
}

func checkDeadLetter(t *testing.T, got output, in kafka.Message, class, stage string, offset int64, maxBytes int) {
	t.Helper()
	want := map[string]string{
		stream.HeaderErrTopic:     topicIn,
		stream.HeaderErrPartition: "0",
		stream.HeaderErrOffset:    strconv.FormatInt(offset, 10),
		stream.HeaderErrStage:     stage,
		stream.HeaderErrClass:     class,
	}
	if got.key != string(in.Key) {
		t.Errorf("dead letter key %q, want %q", got.key, in.Key)
	}
	for k, v := range want {
		if got.headers[k] != v {
			t.Errorf("%s: header %s = %q, want %q", in.Key, k, got.headers[k], v)
		}
	}
	if got.headers[stream.HeaderErrMessage] == "" {
		t.Errorf("%s: no error message header", in.Key)
	}
	for _, hd := range in.Headers {
		if got.headers[hd.Key] != string(hd.Value) {
			t.Errorf("%s: original header %s lost", in.Key, hd.Key)
		}
	}
	if len(in.Value) > maxBytes { // cut so the whole dead letter fits the cap
		size := len(got.key) + len(got.value)
		for k, v := range got.headers {
			size += len(k) + len(v)
		}
		if got.headers[stream.HeaderOriginalBytes] != strconv.Itoa(len(in.Value)) || size > maxBytes ||
			!bytes.HasPrefix(in.Value, got.value) || len(got.value) < maxBytes/2 {
			t.Errorf("%s: cut to %d bytes (record %d), %s = %q", in.Key, len(got.value), size,
				stream.HeaderOriginalBytes, got.headers[stream.HeaderOriginalBytes])
		}
		return
	}
	if !bytes.Equal(got.value, in.Value) {
		t.Errorf("%s: value changed: %q", in.Key, strings.ToValidUTF8(string(got.value[:min(len(got.value), 40)]), "?"))
	}
}
