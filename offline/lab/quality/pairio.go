package quality

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxLine bounds one line of a pair list.
const maxLine = 1 << 20

// PairScanner reads a pair list one pair at a time, in the manner of bufio.Scanner:
//
//	s := quality.NewPairScanner(r)
//	for s.Scan() {
//		p := s.Pair()
//	}
//	if err := s.Err(); err != nil { ... }
//
// Each line holds two ids and optionally more fields, which are ignored (a similarity,
// say). A line with a quote is read as CSV (RFC 4180 quoting, within the line); else a
// line with a tab is split on tabs; else a line with a comma is read as CSV; else it is
// split on spaces.
// Unquoted fields are trimmed. Blank lines and a first line of "id_a,id_b" (the header
// PairWriter writes) are skipped, so what a PairWriter writes reads back unchanged. A pair of an id with itself,
// or a line with fewer than two ids, stops the scan with an error naming the line. Pairs
// come back normalised (A < B). Ids cannot hold line breaks, quoted or not.
type PairScanner struct {
	sc   *bufio.Scanner
	line int
	data bool // a data line has been seen
	pair Pair
	err  error
}

// NewPairScanner returns a PairScanner reading r.
func NewPairScanner(r io.Reader) *PairScanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &PairScanner{sc: sc}
}

// Scan advances to the next pair, reporting whether there is one.
func (s *PairScanner) Scan() bool {
	for s.err == nil && s.sc.Scan() {
		s.line++
		line := strings.TrimSpace(s.sc.Text())
		if line == "" {
			continue
		}
		first := !s.data
		s.data = true
		a, b, err := splitPair(line)
		switch {
		case err != nil:
			s.err = fmt.Errorf("line %d: %w", s.line, err)
		case first && a == "id_a" && b == "id_b":
			continue
		case a == b:
			s.err = fmt.Errorf("line %d: id %q paired with itself", s.line, a)
		default:
			s.pair = MakePair(a, b)
			return true
		}
	}
	if s.err == nil && s.sc.Err() != nil {
		s.err = fmt.Errorf("line %d: %w", s.line+1, s.sc.Err())
	}
	s.pair = Pair{}
	return false
}

// Pair returns the pair Scan found.
func (s *PairScanner) Pair() Pair { return s.pair }

// Line returns the 1-based number of the line Scan last read.
func (s *PairScanner) Line() int { return s.line }

// Err returns the first error met, or nil at a clean end of input.
func (s *PairScanner) Err() error { return s.err }

var errFields = errors.New("want two ids")

// splitPair returns the first two fields of a pair-list line.
func splitPair(line string) (string, string, error) {
	var f []string
	quoted := strings.Contains(line, `"`)
	switch {
	case !quoted && strings.Contains(line, "\t"):
		f = strings.SplitN(line, "\t", 3)
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
	case quoted || strings.Contains(line, ","):
		var err error
		if f, err = csvFields(line, 2); err != nil {
			return "", "", err
		}
	default:
		f = strings.Fields(line)
	}
	if len(f) < 2 {
		return "", "", errFields
	}
	if f[0] == "" || f[1] == "" {
		return "", "", errFields
	}
	return f[0], f[1], nil
}

// csvFields returns up to want leading fields of one CSV line. A quoted field runs to
// its closing quote, with "" standing for a quote, and must be followed by a comma or the
// end of the line; spaces around it are dropped. An unquoted field is trimmed.
func csvFields(line string, want int) ([]string, error) {
	var out []string
	i := 0
	for len(out) < want {
		var field string
		if strings.HasPrefix(strings.TrimLeft(line[i:], " "), `"`) {
			i += strings.Index(line[i:], `"`) + 1
			var sb strings.Builder
			for {
				j := strings.IndexByte(line[i:], '"')
				if j < 0 {
					return nil, errors.New("unterminated quote")
				}
				sb.WriteString(line[i : i+j])
				i += j + 1
				if i < len(line) && line[i] == '"' {
					sb.WriteByte('"')
					i++
					continue
				}
				break
			}
			field = sb.String()
			rest := strings.TrimLeft(line[i:], " ")
			if rest != "" && rest[0] != ',' {
				return nil, errors.New("text after a closing quote")
			}
			i = len(line) - len(rest)
		} else {
			j := strings.IndexByte(line[i:], ',')
			if j < 0 {
				j = len(line) - i
			}
			field = strings.TrimSpace(line[i : i+j])
			i += j
		}
		out = append(out, field)
		if i >= len(line) {
			break
		}
		i++ // the comma
	}
	return out, nil
}

// PairWriter writes pairs as CSV under an "id_a,id_b" header. An id is quoted when it
// is empty, holds a comma, quote, tab or line break, or starts or ends with a space, so
// that a PairScanner reads it back unchanged. Call Flush when done.
type PairWriter struct {
	w   *bufio.Writer
	err error
}

// NewPairWriter returns a PairWriter writing to w; the header goes to the buffer at once,
// so an empty list is still a valid CSV file.
func NewPairWriter(w io.Writer) *PairWriter {
	pw := &PairWriter{w: bufio.NewWriter(w)}
	_, pw.err = pw.w.WriteString("id_a,id_b\n")
	return pw
}

// Write writes one pair, normalised. Errors are sticky: after one, Write does nothing
// and returns it.
func (w *PairWriter) Write(p Pair) error {
	if w.err != nil {
		return w.err
	}
	p = MakePair(p.A, p.B)
	w.field(p.A)
	w.w.WriteByte(',')
	w.field(p.B)
	w.err = w.w.WriteByte('\n')
	return w.err
}

func (w *PairWriter) field(s string) {
	if s != "" && !strings.ContainsAny(s, ",\"\t\r\n") && strings.TrimSpace(s) == s {
		w.w.WriteString(s)
		return
	}
	w.w.WriteByte('"')
	w.w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	w.w.WriteByte('"')
}

// Flush writes any buffered data and returns the first write error.
func (w *PairWriter) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.w.Flush()
	return w.err
}
