package corpus

import (
	"fmt"
	"io"
	"strings"
)

// newsPath recognises a 20 Newsgroups "by date" member path such as
// "20news-bydate/20news-bydate-train/sci.med/59284" (any leading directories) and
// returns its split ("train" or "test"), group and article number.
func newsPath(p string) (split, group, num string, ok bool) {
	parts := strings.Split(p, "/")
	n := len(parts)
	if n < 3 || parts[n-1] == "" || parts[n-2] == "" {
		return "", "", "", false
	}
	split, ok = strings.CutPrefix(parts[n-3], "20news-bydate-")
	if !ok || (split != "train" && split != "test") {
		return "", "", "", false
	}
	return split, parts[n-2], parts[n-1], true
}

// parseNews turns one 20 Newsgroups article into a Doc. The header block (up to the
// first blank line) is split off: Subject becomes Title, and the groups of a
// Newsgroups header are appended to the directory's group in Group. Body is the message
// text after the headers.
func parseNews(p string, raw []byte) (Doc, bool) {
	split, group, num, ok := newsPath(p)
	if !ok {
		return Doc{}, false
	}
	s := cleanText(toUTF8(raw))
	head, body := splitHeaders(s)
	d := Doc{
		ID:    "20news/" + split + "/" + group + "/" + num,
		URL:   "20news-bydate-" + split + "/" + group + "/" + num,
		Title: oneLine(header(head, "Subject")),
		Body:  strings.TrimRight(strings.TrimLeft(body, "\n"), " \t\n"),
		Group: newsGroups(group, header(head, "Newsgroups")),
	}
	return d, true
}

// splitHeaders separates an RFC 1036-style header block from the body. A message whose
// first line is neither "Name: value" nor a folded continuation has no headers.
func splitHeaders(s string) (head, body string) {
	first, _, _ := strings.Cut(s, "\n")
	if !isHeaderLine(first) && !strings.HasPrefix(first, " ") && !strings.HasPrefix(first, "\t") {
		return "", s
	}
	head, body, found := strings.Cut(s, "\n\n")
	if !found {
		return s, ""
	}
	return head, body
}

// isHeaderLine reports whether line starts with a header field name and a colon.
func isHeaderLine(line string) bool {
	name, _, ok := strings.Cut(line, ":")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// header returns the unfolded value of the first header called name (case-insensitive).
func header(head, name string) string {
	lines := strings.Split(head, "\n")
	for i, line := range lines {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(k, name) {
			continue
		}
		for _, next := range lines[i+1:] {
			if next == "" || (next[0] != ' ' && next[0] != '\t') {
				break
			}
			v += " " + next
		}
		return strings.TrimSpace(v)
	}
	return ""
}

// newsGroups lists dir first, then the other groups named in a Newsgroups header.
func newsGroups(dir, hdr string) string {
	groups := []string{dir}
	for _, g := range strings.Split(hdr, ",") {
		g = strings.TrimSpace(g)
		if g != "" && g != dir {
			groups = append(groups, g)
		}
	}
	return strings.Join(groups, ",")
}

// Read20News streams the articles of a 20 Newsgroups "by date" archive (r is the
// .tar.gz stream) to fn in archive order. Ids are "20news/<train|test>/<group>/<n>".
// Members that are not articles are skipped; an archive without any article is an
// error. Errors from fn are returned unchanged.
func Read20News(r io.Reader, fn func(Doc) error) error {
	t := tarDocs{news: true, fn: fn}
	if err := t.read(r); err != nil {
		return err
	}
	if t.n == 0 {
		return fmt.Errorf("read 20news: no 20news-bydate-{train,test}/<group>/<n> members")
	}
	return nil
}
