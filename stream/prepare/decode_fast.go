package prepare

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// The fast path of decodeJSON: a single pass over the record that checks it
// is one JSON object and pulls out the five page fields, without building
// encoding/json values for the fields nobody reads (most of a crawled
// page's record is its body, which it copies once). It handles the common
// record — UTF-8, the fields strings (the id also a number) — and says
// "not mine" for everything else, which the full parser then decides, so
// every error, every charset fallback and every odd case keeps one
// implementation. FuzzDecodeFast checks that whatever it returns is what
// the full parser returns.

// fastKind is what a field held.
type fastKind uint8

const (
	fastAbsent fastKind = iota
	fastNull
	fastString
	fastNumber
	fastOther // an object, array or boolean: the full parser reports it
)

type fastField struct {
	kind fastKind
	val  string // the string's value, or the number as written
	body []byte // html and body: the value's bytes, aliasing the record when it has no escapes
}

// maxFastDepth bounds the nesting the fast path walks; deeper records go to
// the full parser.
const maxFastDepth = 64

// fastRecord decodes a page record of UTF-8 JSON (v without a byte-order
// mark), or returns false to hand it to the full parser. A body with escapes
// is unescaped into buf (from its start), which it returns, grown or not.
func (d decoder) fastRecord(v, buf []byte) (Record, []byte, bool) {
	if d.record != nil || !utf8.Valid(v) {
		return Record{}, buf, false
	}
	f := d.cfg.Fields
	names := [...]string{f.ID, f.URL, f.Title, f.HTML, f.Body}
	var got [len(names)]fastField
	s := fastScanner{b: v, buf: buf[:0]}
	rec, ok := s.record(names[:], got[:])
	return rec, s.buf, ok
}

// record reads the record's object and makes its Record.
func (s *fastScanner) record(names []string, got []fastField) (Record, bool) {
	if !s.object(names, got) {
		return Record{}, false
	}
	s.space()
	if s.i != len(s.b) {
		return Record{}, false // data after the object
	}
	for i, g := range got {
		if g.kind == fastOther || g.kind == fastNumber && i != 0 {
			return Record{}, false // a wrong field type: the full parser says which
		}
	}
	rec := Record{ID: got[0].val, URL: got[1].val, Title: got[2].val}
	switch html, text := got[3].body, got[4].body; {
	case len(html) > 0:
		rec.Body, rec.HTML = html, true
	case len(text) > 0:
		rec.Body = text
	default:
		return Record{}, false // no body: the full parser reports it
	}
	return rec, true
}

// fastScanner walks JSON text; every method returns false on anything it
// does not accept, and the caller gives up.
type fastScanner struct {
	b     []byte
	i     int
	depth int
	buf   []byte // where a body field with escapes is unescaped to
}

func (s *fastScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object reads the top-level object, keeping the last value of each named
// key (as decoding into a map does).
func (s *fastScanner) object(names []string, got []fastField) bool {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.space()
		key, ok := s.str()
		if !ok {
			return false
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		want := -1
		for j, n := range names {
			if n == key {
				want = j
				break
			}
		}
		if want < 0 {
			if !s.skip() {
				return false
			}
		} else if got[want], ok = s.field(want >= 3); !ok {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// field reads a wanted key's value; a body field's string is kept as bytes,
// aliasing the record unless it has escapes (as a raw page's body aliases
// the message).
func (s *fastScanner) field(body bool) (fastField, bool) {
	if s.i >= len(s.b) {
		return fastField{}, false
	}
	switch c := s.b[s.i]; {
	case c == '"' && body:
		raw, escaped, ok := s.raw()
		if ok && escaped {
			out, uok := appendUnescaped(s.buf, raw)
			if !uok {
				return fastField{}, false // a surrogate: the full parser's (s.buf kept as it was)
			}
			start := len(s.buf)
			s.buf = out
			raw = s.buf[start:len(s.buf):len(s.buf)] // a later field appends after it
		}
		return fastField{kind: fastString, body: raw}, ok
	case c == '"':
		v, ok := s.str()
		return fastField{kind: fastString, val: v}, ok
	case c == '-' || c >= '0' && c <= '9':
		start := s.i
		ok := s.number()
		return fastField{kind: fastNumber, val: string(s.b[start:s.i])}, ok
	case c == 'n':
		return fastField{kind: fastNull}, s.literal("null")
	default:
		return fastField{kind: fastOther}, s.skip()
	}
}

// skip reads any value.
func (s *fastScanner) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, _, ok := s.raw()
		return ok
	case c == '{', c == '[':
		return s.container(c)
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

// container skips an object or array opened by open.
func (s *fastScanner) container(open byte) bool {
	if s.depth++; s.depth > maxFastDepth {
		return false
	}
	defer func() { s.depth-- }()
	closeWith := byte(']')
	if open == '{' {
		closeWith = '}'
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == closeWith {
		s.i++
		return true
	}
	for {
		s.space()
		if open == '{' {
			if _, _, ok := s.raw(); !ok {
				return false
			}
			s.space()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return false
			}
			s.i++
			s.space()
		}
		if !s.skip() {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case closeWith:
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *fastScanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *fastScanner) number() bool {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *fastScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// raw reads a string and returns its bytes between the quotes, escapes
// unresolved, and whether it has any.
func (s *fastScanner) raw() (raw []byte, escaped, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		for s.i+8 <= len(s.b) && plainWord(binary.LittleEndian.Uint64(s.b[s.i:])) {
			s.i += 8
		}
		for s.i < len(s.b) && plainByte[s.b[s.i]] { // the run of bytes that need no look
			s.i++
		}
		if s.i == len(s.b) {
			break
		}
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], escaped, true
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				return nil, false, false
			}
			if s.b[s.i+1] == 'u' {
				if len(s.b)-s.i < 6 || !hex4(s.b[s.i+2:s.i+6]) {
					return nil, false, false
				}
				s.i += 6
				continue
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false // a control character must be escaped
		default:
			s.i++
		}
	}
	return nil, false, false
}

// plainWord says whether all eight bytes of w are plainByte: none is the
// quote, the backslash or below 0x20. (x - 0x01…01*n) & ^x & 0x80…80 is not
// zero exactly when a byte of x is below n, for n up to 0x80; a byte equal
// to c is a zero byte of x ^ c*0x01…01.
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := func(x uint64, n byte) uint64 { return (x - ones*uint64(n)) & ^x & highs }
	return below(w, 0x20)|below(w^(ones*'"'), 1)|below(w^(ones*'\\'), 1) == 0
}

// plainByte marks the bytes a string holds as they are: not the quote, the
// backslash or a control character.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads a string and returns its value.
func (s *fastScanner) str() (string, bool) {
	raw, escaped, ok := s.raw()
	if ok && escaped {
		raw, ok = appendUnescaped(nil, raw)
	}
	return string(raw), ok
}

// appendUnescaped appends to out the string raw (already checked) with its
// escapes resolved; a \u escape of a surrogate goes to the full parser, which
// pairs or replaces it (false).
func appendUnescaped(out, raw []byte) ([]byte, bool) {
	out = slices.Grow(out, len(raw))
	for i := 0; i < len(raw); {
		n := bytes.IndexByte(raw[i:], '\\') // copy the run up to the next escape whole
		if n < 0 {
			return append(out, raw[i:]...), true
		}
		out = append(out, raw[i:i+n]...)
		i += n
		switch raw[i+1] {
		case 'u':
			r := rune(hexVal(raw[i+2])<<12 | hexVal(raw[i+3])<<8 | hexVal(raw[i+4])<<4 | hexVal(raw[i+5]))
			if r >= 0xD800 && r < 0xE000 {
				return nil, false
			}
			out = utf8.AppendRune(out, r)
			i += 6
			continue
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // " \ /
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return out, true
}

func hex4(b []byte) bool {
	for _, c := range b {
		if hexVal(c) < 0 {
			return false
		}
	}
	return true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
