package prepare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
)

// Record is a decoded page: who it is and what it says.
type Record struct {
	ID    string
	URL   string
	Title string
	Body  []byte // page text or markup, UTF-8; aliases the message value when that is UTF-8 (raw mode)
	HTML  bool   // Body is markup
	// Charset is the encoding the value was read in, by its WHATWG name
	// (e.g. windows-1251), when it was not UTF-8; "" for UTF-8.
	Charset string
	// CharsetDetected: Charset was detected from the value's bytes, not
	// named by a byte-order mark, header, field or <meta>.
	CharsetDetected bool
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
	cfg    Config
	record []lsh.RecordField // record mode: the fields to read; nil for pages
}

// decodeInto reads m per the configured format. It unescapes a JSON
// record's body, when it has escapes, into *buf (from its start, growing it
// as needed), so that the Record's Body may alias *buf until the next
// decodeInto with it.
func (d decoder) decodeInto(m *kafka.Message, buf *[]byte) (Record, *InputError) {
	v := m.Value
	if len(v) == 0 {
		return Record{}, decodeErr("EmptyValue", "empty value")
	}
	if n := MessageSize(m); n > d.cfg.MaxMessageBytes {
		return Record{}, decodeErr("Oversized", "record of %d bytes (key, value and headers) exceeds decode.max_message_bytes %d", n, d.cfg.MaxMessageBytes)
	} else if l := d.cfg.TopicLimit; l > 0 && n > l {
		return Record{}, decodeErr("Oversized", "record of %d bytes (key, value and headers) exceeds %d, the most the output topics take with verdict headers (%s)", n, l, d.cfg.TopicLimitWhy)
	}
	v, bom, ierr := readBOM(v)
	if ierr != nil {
		return Record{}, ierr
	}
	if len(v) == 0 {
		return Record{}, decodeErr("EmptyValue", "value is only a %s byte-order mark", bom)
	}
	var rec Record
	switch {
	case d.cfg.Format == FormatJSON || d.record != nil:
		rec, ierr = d.decodeJSON(m.Headers, v, bom, buf)
	case d.cfg.Format == FormatAuto && startsObject(v):
		// A value that starts like an object and parses as one is a record;
		// one that does not parse is a page that happens to start with "{".
		if rec, ierr = d.decodeJSON(m.Headers, v, bom, buf); ierr != nil && ierr.Class == "dedupstream.MalformedJSON" {
			rec, ierr = decodeRaw(&d.cfg, m.Headers, v, bom)
		}
	default:
		rec, ierr = decodeRaw(&d.cfg, m.Headers, v, bom)
	}
	if ierr != nil {
		return Record{}, ierr
	}
	if rec.ID == "" {
		rec.ID = fallbackID(m)
	}
	return rec, nil
}

// MessageSize is what a record weighs in a produce request, near enough.
func MessageSize(m *kafka.Message) int {
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

// decodeRaw reads a page: v is the value, or its text when it had a
// byte-order mark naming charset bom. RawPage tells markup from text.
func decodeRaw(cfg *Config, hs []kafka.Header, v []byte, bom string) (Record, *InputError) {
	r := reading{name: bom}
	if bom == "" {
		var ierr *InputError
		if v, r, ierr = rawText(cfg, hs, v); ierr != nil {
			return Record{}, ierr
		}
	}
	rec := RawPage(v)
	rec.Charset, rec.CharsetDetected = reported(r.name), r.detected
	return rec, nil
}

// CharsetHeader is the value of the output header dedup.charset for rec:
// its Charset, followed by "; detected" when it was detected from the
// bytes ("windows-1251; detected"); "" for UTF-8.
func (rec Record) CharsetHeader() string {
	if rec.CharsetDetected && rec.Charset != "" {
		return rec.Charset + "; detected"
	}
	return rec.Charset
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

// decodeJSON reads a record: v is the value, or its text when it had a
// byte-order mark naming charset bom. A record that is not UTF-8 is decoded
// from the charset it names before it is parsed.
func (d decoder) decodeJSON(hs []kafka.Header, v []byte, bom string, buf *[]byte) (Record, *InputError) {
	if bom == "" {
		rec, grown, ok := d.fastRecord(v, *buf)
		*buf = grown
		if ok {
			return rec, nil
		}
	}
	return d.parseJSON(hs, v, bom)
}

// parseJSON is decodeJSON with encoding/json: every record the fast path
// leaves, and every error.
func (d decoder) parseJSON(hs []kafka.Header, v []byte, bom string) (Record, *InputError) {
	obj, ierr := parseObject(v)
	cs := reading{name: bom}
	// Only a record that may not be UTF-8 is checked byte by byte: one that
	// does not parse, or has U+FFFD in a string, the parser's stand-in for
	// bytes that are not UTF-8.
	if bom == "" && (ierr != nil || replaced(obj)) && !utf8.Valid(v) {
		if v, cs, ierr = jsonText(&d.cfg, hs, v); ierr != nil {
			return Record{}, ierr
		}
		obj, ierr = parseObject(v)
	}
	if ierr != nil {
		return Record{}, ierr
	}
	rec, ierr := d.readObject(obj)
	if ierr != nil {
		return Record{}, ierr
	}
	rec.Charset, rec.CharsetDetected = reported(cs.name), cs.detected
	return rec, nil
}

// parseObject parses a JSON object: one pass to check and one to decode,
// with numbers kept as written so integer ids stay exact. Bytes that are not
// UTF-8 become U+FFFD.
func parseObject(v []byte) (map[string]any, *InputError) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, decodeErr("MalformedJSON", "value is not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, decodeErr("MalformedJSON", "value has data after its JSON object")
	}
	return obj, nil
}

// replaced reports whether a string of the parsed JSON x, key or value,
// holds U+FFFD, as every string that had bytes that are not UTF-8 does.
func replaced(x any) bool {
	switch x := x.(type) {
	case string:
		return strings.Contains(x, "\uFFFD")
	case map[string]any:
		for k, v := range x {
			if strings.Contains(k, "\uFFFD") || replaced(v) {
				return true
			}
		}
	case []any:
		for _, v := range x {
			if replaced(v) {
				return true
			}
		}
	}
	return false
}

// readObject reads a parsed record's fields.
func (d decoder) readObject(obj map[string]any) (Record, *InputError) {
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

// SourceOf names a record by its input position, topic/partition/offset, which
// a redelivery repeats and a re-crawl of the same page does not.
func SourceOf(m *kafka.Message) string {
	return m.Topic + "/" + strconv.Itoa(m.Partition) + "/" + strconv.FormatInt(m.Offset, 10)
}
