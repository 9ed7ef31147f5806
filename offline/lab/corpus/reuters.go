package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// maxReutersDoc bounds one <REUTERS> element; the largest in Reuters-21578 is ~12 KiB.
const maxReutersDoc = 4 << 20

const reutersEnd = "</REUTERS>"

// ReadReuters streams the documents of one Reuters-21578 SGML file (its contents in r)
// to fn. name is the file's name inside the collection (e.g. "reut2-003.sgm") and goes
// into each id: "reuters/<name>/NEWID=<n>".
//
// Title is the TITLE element; Body is the BODY element. Documents with TYPE="BRIEF" or
// TYPE="UNPROC" have no BODY, and their Body is the whole TEXT element with its markup
// removed, so a BRIEF keeps its headline (its only content besides "Blah blah blah.").
// Group is the TOPICS list, comma-separated. Character references are decoded and the
// control characters the collection is full of (&#2;, &#3;, &#5;, ...) are dropped.
// Errors from fn are returned unchanged.
func ReadReuters(r io.Reader, name string, fn func(Doc) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxReutersDoc)
	sc.Split(splitReuters)
	for sc.Scan() {
		d, ok, err := parseReuters(sc.Bytes(), name)
		if err != nil {
			return fmt.Errorf("read reuters %s: %w", name, err)
		}
		if !ok {
			continue
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read reuters %s: %w", name, err)
	}
	return nil
}

// splitReuters is a bufio.SplitFunc whose tokens end just after each </REUTERS>; the
// final token is whatever follows the last one.
func splitReuters(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.Index(data, []byte(reutersEnd)); i >= 0 {
		n := i + len(reutersEnd)
		return n, data[:n], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// parseReuters turns one scanner token into a Doc. ok is false for a token without a
// <REUTERS> element (the DOCTYPE line, trailing white space).
func parseReuters(block []byte, name string) (d Doc, ok bool, err error) {
	start := bytes.Index(block, []byte("<REUTERS"))
	if start < 0 {
		return Doc{}, false, nil
	}
	s := toUTF8(block[start:])
	if !strings.HasSuffix(s, reutersEnd) {
		return Doc{}, false, fmt.Errorf("unterminated REUTERS element at byte %d", start)
	}
	open, _, _ := strings.Cut(s, ">")
	newid, ok := attr(open, "NEWID")
	if !ok || newid == "" {
		return Doc{}, false, fmt.Errorf("REUTERS element without NEWID: %.80q", open)
	}
	d = Doc{
		ID:    "reuters/" + name + "/NEWID=" + newid,
		URL:   name + "#NEWID=" + newid,
		Group: reutersTopics(s),
	}
	text, _ := element(s, "TEXT")
	if title, ok := element(text, "TITLE"); ok {
		d.Title = oneLine(cleanText(unescapeSGML(title)))
	}
	body, ok := element(text, "BODY")
	if !ok {
		body = stripTags(text)
	}
	d.Body = strings.TrimSpace(cleanText(unescapeSGML(body)))
	return d, true, nil
}

// reutersTopics returns the <D> values inside TOPICS, comma-separated.
func reutersTopics(s string) string {
	topics, _ := element(s, "TOPICS")
	var list []string
	for {
		v, ok := element(topics, "D")
		if !ok {
			return strings.Join(list, ",")
		}
		list = append(list, strings.TrimSpace(unescapeSGML(v)))
		_, topics, _ = strings.Cut(topics, "</D>")
	}
}

// element returns the content of the first <tag ...>...</tag> element in s.
func element(s, tag string) (string, bool) {
	for off := 0; ; {
		i := strings.Index(s[off:], "<"+tag)
		if i < 0 {
			return "", false
		}
		i += off + 1 + len(tag)
		if i < len(s) && (s[i] == '>' || s[i] == ' ') {
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				return "", false
			}
			rest := s[i+j+1:]
			k := strings.Index(rest, "</"+tag+">")
			if k < 0 {
				return "", false
			}
			return rest[:k], true
		}
		off = i
	}
}

// attr returns the value of name="value" in an SGML start tag.
func attr(tag, name string) (string, bool) {
	for off := 0; ; {
		i := strings.Index(tag[off:], name+`="`)
		if i < 0 {
			return "", false
		}
		i += off
		if i > 0 && tag[i-1] == ' ' {
			v, _, ok := strings.Cut(tag[i+len(name)+2:], `"`)
			return v, ok
		}
		off = i + len(name)
	}
}
