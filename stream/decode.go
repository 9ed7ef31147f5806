package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
)

// Record is a decoded page: who it is and what it says.
type Record struct {
	ID    string
	URL   string
	Title string
	Body  []byte // page text or markup; aliases the message value in raw mode
	HTML  bool   // Body is markup
	// Fields are a structured record's values in record mode, one entry per
	// configured field (nil: missing): one string for text, year (four
	// digits) and exact fields, one per author for authors. Body is empty.
	Fields [][]string
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
	cfg    DecodeConfig
	record []lsh.RecordField // record mode: the fields to read; nil for pages
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
	case d.cfg.Format == FormatJSON || d.record != nil:
		rec, ierr = d.decodeJSON(v)
	case d.cfg.Format == FormatAuto && startsObject(v):
		// A value that starts like an object and parses as one is a record;
		// one that does not parse is a page that happens to start with "{".
		if rec, ierr = d.decodeJSON(v); ierr != nil && ierr.Class == "dedupstream.MalformedJSON" {
			rec, ierr = decodeRaw(v, looksHTML)
		}
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

func startsObject(v []byte) bool {
	t := bytes.TrimLeft(v, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
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

// decodeJSON reads a record: one pass to check and one to decode, with numbers
// kept as written so integer ids stay exact.
func (d decoder) decodeJSON(v []byte) (Record, *InputError) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return Record{}, decodeErr("MalformedJSON", "value is not a JSON object: %v", err)
	}
	if dec.More() {
		return Record{}, decodeErr("MalformedJSON", "value has data after its JSON object")
	}
	f := d.cfg.Fields
	var rec Record
	var err error
	if rec.ID, err = jsonID(obj[f.ID]); err != nil {
		return Record{}, decodeErr("WrongFieldType", "field %q: %v", f.ID, err)
	}
	if rec.URL, err = jsonString(obj[f.URL]); err != nil {
		return Record{}, decodeErr("WrongFieldType", "field %q: %v", f.URL, err)
	}
	if d.record != nil {
		return d.jsonRecord(obj, rec)
	}
	if rec.Title, err = jsonString(obj[f.Title]); err != nil {
		return Record{}, decodeErr("WrongFieldType", "field %q: %v", f.Title, err)
	}
	return d.jsonBody(obj, rec)
}

// jsonBody prefers the HTML field, then the text field.
func (d decoder) jsonBody(obj map[string]any, rec Record) (Record, *InputError) {
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
func jsonString(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("want a string, got %s", jsonKind(v))
}

// jsonID reads an id that may be a string or a number.
func jsonID(v any) (string, error) {
	if n, ok := v.(json.Number); ok {
		return n.String(), nil
	}
	return jsonString(v)
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// fallbackID names a record with neither an id field nor a key by its position,
// which is stable across replays.
func fallbackID(m *kafka.Message) string {
	if len(m.Key) > 0 {
		return string(m.Key)
	}
	return SourceOf(m)
}
