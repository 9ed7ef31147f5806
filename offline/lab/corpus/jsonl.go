package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Fields names the JSON keys ReadJSONL takes each part of a Doc from. A name may list
// alternatives separated by "|", tried in order; the first key that is present with a
// non-empty value wins. An empty name means the default: "id", "url", "title" and
// "body|text|html|content".
type Fields struct{ ID, URL, Title, Body string }

// withDefaults returns f with empty names replaced by the defaults.
func (f Fields) withDefaults() Fields {
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return Fields{
		ID:    def(f.ID, "id"),
		URL:   def(f.URL, "url"),
		Title: def(f.Title, "title"),
		Body:  def(f.Body, "body|text|html|content"),
	}
}

// ReadJSONL streams one document per line of r to fn. Each non-blank line must be a
// JSON object. The id is "jsonl/<value of the ID field>" (strings as they are, numbers
// as written), or "jsonl/#<line number>" when the record has none. Errors from fn are
// returned unchanged.
func ReadJSONL(r io.Reader, fields Fields, fn func(Doc) error) error {
	f := fields.withDefaults()
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read jsonl line %d: %w", line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			d, perr := parseJSONL(b, line, f)
			if perr != nil {
				return fmt.Errorf("read jsonl line %d: %w", line, perr)
			}
			if ferr := fn(d); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			return nil
		}
	}
}

// parseJSONL decodes one line into a Doc.
func parseJSONL(b []byte, line int, f Fields) (Doc, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Doc{}, err
	}
	var d Doc
	var err error
	get := func(names string) string {
		v, e := pick(m, names)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	id := get(f.ID)
	d.URL, d.Title, d.Body = get(f.URL), oneLine(get(f.Title)), cleanText(get(f.Body))
	if err != nil {
		return Doc{}, err
	}
	if id == "" {
		id = "#" + strconv.Itoa(line)
	}
	d.ID = "jsonl/" + id
	return d, nil
}

// pick returns the value of the first of the "|"-separated keys that is present and
// not empty. Strings are decoded; numbers and booleans are kept as written; objects
// and arrays are an error.
func pick(m map[string]json.RawMessage, names string) (string, error) {
	for _, name := range strings.Split(names, "|") {
		raw, ok := m[name]
		if !ok {
			continue
		}
		v, err := scalar(raw)
		if err != nil {
			return "", fmt.Errorf("field %q: %w", name, err)
		}
		if v != "" {
			return v, nil
		}
	}
	return "", nil
}

// scalar renders a JSON scalar as text; null is "".
func scalar(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case raw[0] == '{' || raw[0] == '[':
		return "", errors.New("not a string, number or boolean")
	}
	return string(raw), nil
}
