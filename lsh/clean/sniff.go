package clean

import "bytes"

// sniffLen is how much of the input LooksLikeHTML examines.
const sniffLen = 1024

// LooksLikeHTML reports whether b appears to be markup: after an optional
// UTF-8 byte-order mark and white space it starts with '<', and its first
// kilobyte contains a common tag such as <html, <body, <p, <div or
// <!doctype. It does not allocate.
func LooksLikeHTML(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimLeft(b, " \t\r\n\f")
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	b = b[:min(len(b), sniffLen)]
	for i := bytes.IndexByte(b, '<'); i >= 0; {
		if knownTag(b[i+1:]) {
			return true
		}
		j := bytes.IndexByte(b[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// knownTag reports whether b, the bytes after a '<', starts with a common
// tag name, case-insensitively, followed by the end of the name.
func knownTag(b []byte) bool {
	for _, name := range [...]string{
		"!doctype", "html", "head", "body", "title", "meta", "link",
		"script", "style", "p", "div", "span", "a", "br", "table", "ul",
		"h1", "h2", "h3", "img", "!--",
	} {
		if len(b) < len(name) || !bytes.EqualFold(b[:len(name)], []byte(name)) {
			continue
		}
		if name == "!--" || len(b) == len(name) {
			return true
		}
		switch b[len(name)] {
		case ' ', '>', '/', '\t', '\n', '\r', '\f':
			return true
		}
	}
	return false
}
