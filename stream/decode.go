package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"
)

// Record is a decoded page: who it is and what it says.
type Record struct {
	ID    string
	URL   string
	Title string
	Body  []byte // page text or markup; aliases the message value in raw mode
	HTML  bool   // Body is markup
}

// InputError explains why a record is invalid. Stage and Class become the
// dead-letter headers __connect.errors.stage and __connect.errors.exception.class.name.
type InputError struct {
	Stage string // DECODE or CLEAN
	Class string // stable name of the failure, e.g. dedupstream.Oversized
	Msg   string
}

func (e *InputError) Error() string { return e.Stage + ": " + e.Msg }

// Stages of the pipeline that can reject input.
const (
	StageDecode = "DECODE"
	StageClean  = "CLEAN"
)

func decodeErr(class, format string, args ...any) *InputError {
	return &InputError{Stage: StageDecode, Class: "dedupstream." + class, Msg: fmt.Sprintf(format, args...)}
}

// decoder turns message values into Records.
type decoder struct {
	cfg DecodeConfig
}

// decode reads m per the configured format. looksHTML tells markup from text.
func (d decoder) decode(m *kafka.Message, looksHTML func([]byte) bool) (Record, *InputError) {
	v := m.Value
	if len(v) == 0 {
		return Record{}, decodeErr("EmptyValue", "empty value")
	}
	if n := messageSize(m); n > d.cfg.MaxMessageBytes {
		return Record{}, decodeErr("Oversized", "record of %d bytes (key, value and headers) exceeds decode.max_message_bytes %d", n, d.cfg.MaxMessageBytes)
	}
	var rec Record
	var ierr *InputError
	switch {
	case d.cfg.Format == FormatJSON:
		rec, ierr = d.decodeJSON(v)
	case d.cfg.Format == FormatAuto && isJSONObject(v):
		rec, ierr = d.decodeJSON(v)
	default:
		rec, ierr = decodeRaw(v, looksHTML)
	}
	if ierr != nil {
		return Record{}, ierr
	}
	if rec.ID == "" {
		rec.ID = fallbackID(m)
	}
	return rec, nil
}

// messageSize is what a record weighs in a produce request, near enough.
func messageSize(m *kafka.Message) int {
	n := len(m.Key) + len(m.Value)
	for _, h := range m.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}

func isJSONObject(v []byte) bool {
	t := bytes.TrimLeft(v, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(v)
}

func decodeRaw(v []byte, looksHTML func([]byte) bool) (Record, *InputError) {
	if i := bytes.IndexByte(v, 0); i >= 0 {
		return Record{}, decodeErr("BinaryValue", "value has a NUL byte at offset %d: binary data, not a page", i)
	}
	if !utf8.Valid(v) {
		return Record{}, decodeErr("InvalidUTF8", "value is not valid UTF-8 (first bad byte at offset %d)", firstInvalidUTF8(v))
	}
	return Record{Body: v, HTML: looksHTML(v)}, nil
}

func firstInvalidUTF8(v []byte) int {
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func (d decoder) decodeJSON(v []byte) (Record, *InputError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(v, &obj); err != nil {
		return Record{}, decodeErr("MalformedJSON", "value is not a JSON object: %v", err)
	}
	f := d.cfg.Fields
	var rec Record
	var err error
	if rec.ID, err = jsonID(obj[f.ID]); err != nil {
		return Record{}, decodeErr("WrongFieldType", "field %q: %v", f.ID, err)
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{f.URL, &rec.URL}, {f.Title, &rec.Title}} {
		if *p.dst, err = jsonString(obj[p.name]); err != nil {
			return Record{}, decodeErr("WrongFieldType", "field %q: %v", p.name, err)
		}
	}
	return d.jsonBody(obj, rec)
}

// jsonBody prefers the HTML field, then the text field.
func (d decoder) jsonBody(obj map[string]json.RawMessage, rec Record) (Record, *InputError) {
	f := d.cfg.Fields
	html, err := jsonString(obj[f.HTML])
	if err != nil {
		return Record{}, decodeErr("WrongFieldType", "field %q: %v", f.HTML, err)
	}
	text, err := jsonString(obj[f.Body])
	if err != nil {
		return Record{}, decodeErr("WrongFieldType", "field %q: %v", f.Body, err)
	}
	switch {
	case html != "":
		rec.Body, rec.HTML = []byte(html), true
	case text != "":
		rec.Body = []byte(text)
	default:
		return Record{}, decodeErr("MissingField", "record has no text in field %q or %q", f.HTML, f.Body)
	}
	return rec, nil
}

// jsonString reads a string field; absent and null are "".
func jsonString(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("want a string, got %s", jsonKind(raw))
	}
	return s, nil
}

// jsonID reads an id that may be a string or an integer.
func jsonID(raw json.RawMessage) (string, error) {
	if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err == nil {
			return n.String(), nil
		}
	}
	return jsonString(raw)
}

func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	}
	return "a number"
}

// fallbackID names a record with neither an id field nor a key by its position,
// which is stable across replays.
func fallbackID(m *kafka.Message) string {
	if len(m.Key) > 0 {
		return string(m.Key)
	}
	return sourceOf(m)
}
