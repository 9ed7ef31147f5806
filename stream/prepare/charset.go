package prepare

// A page's bytes become text the way a browser's do (WHATWG HTML,
// "determining the character encoding"), with the libraries browsers'
// rules are kept in, golang.org/x/net/html/charset and golang.org/x/text:
//
//  1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE) decides;
//  2. else a charset the record names: a header (decode.charset.headers),
//     then, for a JSON record, a field (decode.charset.fields);
//  3. else a <meta charset> or <meta http-equiv="Content-Type"> in the
//     first kilobyte of the page;
//  4. else UTF-8, if the bytes are UTF-8;
//  5. else the encoding detected from the bytes (detect.go; decode.detect),
//     if the detector is confident of it.
//
// Two departures, both for data that comes from crawlers rather than from
// servers: a raw page that is valid UTF-8 and names no charset by 1 or 2 is
// UTF-8, whatever its <meta> says — crawlers that convert pages to UTF-8
// leave the old declaration in — and is used as it is, not copied (the fast
// path), never reaching the detector. And where a browser would guess
// anyway (detection off, or not confident), or put U+FFFD in place of bytes
// its encoding cannot read, decode returns an InputError: the record is
// dead-lettered, whole.
//
// A JSON record is UTF-8 text by its standard (RFC 8259): the charset it
// names, by header or field, is read only when it is not valid UTF-8 — a
// crawler wrote the page's bytes into it unconverted — and then decodes the
// whole value before the value is parsed (see jsonText).

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// reading is an encoding chosen for a value, and what chose it.
type reading struct {
	enc  encoding.Encoding // nil: none chosen
	name string            // its WHATWG name, e.g. "windows-1251"
	from string            // what named it, for messages: "header Content-Type"
	// unknown is a label that was named but is no encoding browsers know.
	unknown string
	// detected: the encoding was detected from the bytes, not named.
	detected bool
}

// lookup is the reading of a charset label named by from.
func lookup(label, from string) reading {
	if e, name := charset.Lookup(label); e != nil {
		return reading{enc: e, name: name, from: from}
	}
	return reading{from: from, unknown: label}
}

// reported is the name a Record carries for text read in charset name: ""
// for UTF-8, which is the default and needs no mention.
func reported(name string) string {
	if name == "utf-8" {
		return ""
	}
	return name
}

var replacementChar = []byte(string(utf8.RuneError))

// decode turns v into UTF-8 text: v itself for UTF-8, else a new buffer.
// Bytes the encoding cannot read are an error where a browser would show
// U+FFFD; so is an encoding browsers refuse to decode (WHATWG "replacement",
// e.g. iso-2022-kr).
func (r reading) decode(v []byte) ([]byte, *InputError) {
	if r.name == "utf-8" {
		if !utf8.Valid(v) {
			return nil, decodeErr("InvalidUTF8", "value is not valid UTF-8 (first bad byte at offset %d), though %s says it is", firstInvalidUTF8(v), r.from)
		}
		return v, nil
	}
	if r.name == "replacement" {
		return nil, decodeErr("InvalidCharset", "the charset named by %s is one browsers refuse to decode", r.from)
	}
	text, err := r.enc.NewDecoder().Bytes(v)
	if err != nil {
		return nil, decodeErr("InvalidCharset", "value does not decode as %s, named by %s: %v", r.name, r.from, err)
	}
	if n := bytes.Count(text, replacementChar) - encodedReplacements(r.name, v); n > 0 {
		return nil, decodeErr("InvalidCharset", "value has %d byte sequences that are not %s, named by %s", n, r.name, r.from)
	}
	return text, nil
}

// encodedReplacements counts the U+FFFD characters v holds as text, which
// decoding keeps: only the UTF-16 encodings can hold one.
func encodedReplacements(name string, v []byte) int {
	var unit string
	switch name {
	case "utf-16le":
		unit = "\xfd\xff"
	case "utf-16be":
		unit = "\xff\xfd"
	default:
		return 0
	}
	n := 0
	for i := 0; i+1 < len(v); i += 2 {
		if string(v[i:i+2]) == unit {
			n++
		}
	}
	return n
}

// boms are the byte-order marks, longest first.
var boms = [...]struct{ mark, name string }{
	{"\xef\xbb\xbf", "utf-8"},
	{"\xff\xfe", "utf-16le"},
	{"\xfe\xff", "utf-16be"},
}

// readBOM decodes a value that starts with a byte-order mark, without the
// mark, from the encoding the mark names; name is that encoding, "" when v
// has no mark (v is returned as it is).
func readBOM(v []byte) (text []byte, name string, ierr *InputError) {
	if len(v) < 2 || v[0] < 0xef { // every mark starts with 0xef, 0xfe or 0xff
		return v, "", nil
	}
	for _, b := range boms {
		if len(v) < len(b.mark) || string(v[:len(b.mark)]) != b.mark {
			continue
		}
		if text, ierr = lookup(b.name, "its byte-order mark").decode(v[len(b.mark):]); ierr != nil {
			return nil, "", ierr
		}
		if i := bytes.IndexByte(text, 0); i >= 0 {
			return nil, "", decodeErr("BinaryValue", "value decoded from %s has a NUL character at byte %d: binary data, not a page", b.name, i)
		}
		return text, b.name, nil
	}
	return v, "", nil
}

// headerReading is the charset named by the first of the headers names
// (decode.charset.headers) that names one.
func headerReading(names []string, hs []kafka.Header) reading {
	for _, name := range names {
		for _, h := range hs {
			if !strings.EqualFold(h.Key, name) {
				continue
			}
			if label := charsetLabel(string(h.Value)); label != "" {
				return lookup(label, "header "+h.Key)
			}
		}
	}
	return reading{}
}

// fieldReading is the charset named by the first of the fields names
// (decode.charset.fields) of the JSON record v that names one.
func fieldReading(names []string, v []byte) reading {
	for _, f := range names {
		if label := charsetLabel(string(unescapeJSON(jsonValue(v, f, 256)))); label != "" {
			return lookup(label, "field "+strconv.Quote(f))
		}
	}
	return reading{}
}

// charsetLabel is the charset a Content-Type-like value names: the charset
// parameter of a media type ("text/html; charset=koi8-r"), or the value
// itself when it is a bare label ("koi8-r"); "" when it names none
// ("text/html").
func charsetLabel(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "/;=") {
		return s
	}
	for param := range strings.SplitSeq(s, ";") {
		if k, v, ok := strings.Cut(param, "="); ok && strings.EqualFold(strings.TrimSpace(k), "charset") {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// metaReading is the charset a <meta> in the first kilobyte of page
// declares, found by the library's prescan. page has no byte-order mark
// and no content type is passed, so DetermineEncoding's only other results
// are its guesses, which are not taken: encoding.Nop (the first kilobyte is
// UTF-8) and charmap.Windows1252 (browsers' default for undeclared pages,
// which would read any bytes at all). A declared windows-1252 comes from
// charset.Lookup, wrapped, so it is never charmap.Windows1252 itself;
// TestCharsetGolden holds the library to that.
func metaReading(page []byte) reading {
	page = bytes.TrimPrefix(page, []byte(boms[0].mark))
	e, name, _ := charset.DetermineEncoding(page, "")
	if e == encoding.Nop || e == charmap.Windows1252 {
		return reading{}
	}
	return reading{enc: e, name: name, from: "a <meta> in the page"}
}

// detectedReading is the reading of v, which is not UTF-8 and names no
// charset, in the encoding detected from its bytes, when detection is on
// and confident; else the error that dead-letters v, with the detector's
// guess. named is what a header or field named, if anything.
func detectedReading(cfg *Config, v []byte, named reading) (reading, *InputError) {
	if !cfg.detect() {
		return reading{}, notUTF8(v, named, "")
	}
	d := detectCharset(v)
	if d.confident() {
		return reading{enc: d.enc, name: d.name, from: "detection from its bytes", detected: true}, nil
	}
	if d.enc == nil {
		return reading{}, notUTF8(v, named, "; no encoding the detector tries reads it")
	}
	return reading{}, notUTF8(v, named, fmt.Sprintf("; the detector's best guess, %s, has confidence %.2f, below %.2f", d.name, d.confidence, MinDetectConfidence))
}

// notUTF8 is the error for a value that is not UTF-8 when nothing named
// another encoding; named is what a header or field named, if anything, and
// detected what detection says, if it was tried.
func notUTF8(v []byte, named reading, detected string) *InputError {
	at := firstInvalidUTF8(v)
	if named.unknown != "" {
		return decodeErr("InvalidUTF8", "value is not valid UTF-8 (first bad byte at offset %d), and charset %q, named by %s, is not one browsers know%s",
			at, named.unknown, named.from, detected)
	}
	return decodeErr("InvalidUTF8", "value is not valid UTF-8 (first bad byte at offset %d) and names no charset (byte-order mark, header, field or <meta>)%s", at, detected)
}

// rawText is the text of a page with no byte-order mark, and the reading
// that made it: v itself when v is UTF-8 and names no charset (the fast
// path; the reading is the zero one), else v decoded from the charset its
// header or its <meta> names, or else from the one detected.
func rawText(cfg *Config, hs []kafka.Header, v []byte) ([]byte, reading, *InputError) {
	r := headerReading(cfg.Charset.Headers, hs)
	if r.enc == nil {
		if i := bytes.IndexByte(v, 0); i >= 0 {
			return nil, reading{}, decodeErr("BinaryValue", "value has a NUL byte at offset %d: binary data, not a page", i)
		}
		if utf8.Valid(v) {
			return v, reading{}, nil
		}
		named := r
		if r = metaReading(v); r.enc == nil {
			var ierr *InputError
			if r, ierr = detectedReading(cfg, v, named); ierr != nil {
				return nil, reading{}, ierr
			}
		}
	}
	text, ierr := r.decode(v)
	if ierr != nil {
		return nil, reading{}, ierr
	}
	if i := bytes.IndexByte(text, 0); i >= 0 {
		return nil, reading{}, decodeErr("BinaryValue", "value decoded from %s has a NUL character at byte %d: binary data, not a page", r.name, i)
	}
	return text, r, nil
}

// jsonText decodes a JSON record that is not valid UTF-8 from the charset
// it names: by header, then by field, then by a <meta> in its HTML field;
// else from the one detected from its bytes.
// Until it is decoded it may not parse (a Shift_JIS character can end in a
// backslash), so the fields are found in its bytes: their names are ASCII,
// as in every encoding a browser reads ASCII in. A value that names nothing
// and is no JSON object at all is MalformedJSON, so that format auto reads it
// as a page.
func jsonText(cfg *Config, hs []kafka.Header, v []byte) ([]byte, reading, *InputError) {
	r := headerReading(cfg.Charset.Headers, hs)
	named := r
	if r.enc == nil {
		if r = fieldReading(cfg.Charset.Fields, v); named.unknown == "" {
			named = r
		}
	}
	if r.enc == nil {
		r = metaReading(unescapeJSON(jsonValue(v, cfg.Fields.HTML, 1024)))
	}
	if r.enc == nil {
		if _, ierr := parseObject(v); ierr != nil {
			return nil, reading{}, ierr
		}
		var ierr *InputError
		if r, ierr = detectedReading(cfg, v, named); ierr != nil {
			return nil, reading{}, ierr
		}
	}
	text, ierr := r.decode(v)
	if ierr != nil {
		return nil, reading{}, ierr
	}
	return text, r, nil
}

// jsonValue is the start of the string value of field name in the JSON text
// v, found without parsing v: the bytes after the first "name" that a colon
// and a quote follow, up to the closing quote or max bytes, still escaped;
// nil if there is none. Inside a string the name's quotes are escaped, so
// text that mentions a field never passes for it.
func jsonValue(v []byte, name string, max int) []byte {
	key := []byte(`"` + name + `"`)
	for i := bytes.Index(v, key); i >= 0; {
		rest := bytes.TrimLeft(v[i+len(key):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			if rest = bytes.TrimLeft(rest[1:], " \t\r\n"); len(rest) > 0 && rest[0] == '"' {
				rest = rest[1:min(len(rest), max+1)]
				for j := 0; j < len(rest); j++ {
					switch rest[j] {
					case '\\':
						j++
					case '"':
						return rest[:j]
					}
				}
				return rest
			}
		}
		v = v[i+len(key):]
		i = bytes.Index(v, key)
	}
	return nil
}

// unescapeJSON undoes the escapes of a JSON string's bytes far enough for a
// charset label or a <meta> prescan to be read: \" \/ \\, the ASCII \u00XX
// (Go escapes < > & so), and white space; another \u becomes '?'.
func unescapeJSON(s []byte) []byte {
	if bytes.IndexByte(s, '\\') < 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out = append(out, s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'b', 'f', 'n', 'r', 't':
			out = append(out, ' ')
		case 'u':
			r, err := strconv.ParseUint(string(s[i+1:min(i+5, len(s))]), 16, 16)
			if err != nil || r >= utf8.RuneSelf {
				r = '?'
			}
			out = append(out, byte(r))
			i = min(i+4, len(s)-1)
		default:
			out = append(out, c)
		}
	}
	return out
}
