package corpus

import (
	"fmt"
	"html"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// fileKind returns "reuters", "html" or "text" for the file names a directory read
// picks up (by extension, case-insensitive), and "" for any other file.
func fileKind(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".sgm":
		return "reuters"
	case ".html", ".htm":
		return "html"
	case ".txt":
		return "text"
	}
	return ""
}

// readDir reads every *.txt, *.html, *.htm and *.sgm file under root in the lexical
// order of filepath.WalkDir, which does not depend on the file system. Names starting
// with "." (such as .git) are skipped, and so are symbolic links. Ids are
// "dir/<path relative to root>", with forward slashes; a .sgm file is read with
// ReadReuters under its relative path.
func readDir(root string, fn func(Doc) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read dir %s: %w", root, err)
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || fileKind(d.Name()) == "" {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return fmt.Errorf("read dir %s: %w", root, err)
		}
		return readFile(root, filepath.ToSlash(rel), fn)
	})
}

// readFile reads the file rel (slash-separated, relative to root) as one document, or
// as a Reuters SGML file of many.
func readFile(root, rel string, fn func(Doc) error) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	kind := fileKind(rel)
	if kind == "reuters" {
		return withFile(p, func(f *os.File) error { return ReadReuters(f, rel, fn) })
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("read corpus: %w", err)
	}
	d := Doc{ID: "dir/" + rel, URL: rel, Body: cleanText(toUTF8(b))}
	if kind == "html" {
		d.Title = htmlTitle(d.Body)
	}
	return fn(d)
}

// htmlTitle returns the text of the first <title> element, unescaped and on one line.
func htmlTitle(s string) string {
	i := indexFold(s, "<title")
	if i < 0 {
		return ""
	}
	s = s[i:]
	j := strings.IndexByte(s, '>')
	if j < 0 {
		return ""
	}
	s = s[j+1:]
	if k := indexFold(s, "</title"); k >= 0 {
		s = s[:k]
	}
	return oneLine(html.UnescapeString(s))
}

// indexFold is strings.Index with ASCII case folding; sub must be ASCII.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && lowerASCII(s[i+j]) == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
