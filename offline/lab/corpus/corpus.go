package corpus

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Doc is one document of a collection.
type Doc struct {
	ID    string // stable across runs, e.g. "reuters/reut2-003.sgm/NEWID=3021"
	URL   string // the source's URL, or a path-like pseudo-URL; may be empty
	Title string
	Body  string // plain text or HTML as found, valid UTF-8
	Group string // source categories if any (newsgroups, Reuters TOPICS), comma-separated
}

// errLimit stops a read once the requested number of documents was delivered.
var errLimit = errors.New("corpus: limit reached")

// Read streams every document under path to fn, detecting the kind of collection:
//
//   - a .tar.gz or .tgz archive: members named reut2-*.sgm are read as Reuters-21578
//     and members 20news-bydate-{train,test}/<group>/<n> as 20 Newsgroups articles,
//     in archive order;
//   - a directory: every *.txt, *.html, *.htm and *.sgm file (see readDir);
//   - a .jsonl or .json file: one JSON object per line, default field names (ReadJSONL);
//   - a single .sgm, .txt, .html or .htm file.
//
// If fn returns an error the read stops and Read returns that error. When limit > 0
// the read stops without error after limit documents were delivered.
func Read(path string, limit int, fn func(Doc) error) error {
	err := read(path, limitDocs(limit, fn))
	if errors.Is(err, errLimit) {
		return nil
	}
	return err
}

func read(p string, fn func(Doc) error) error {
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("read corpus: %w", err)
	}
	if st.IsDir() {
		return readDir(p, fn)
	}
	lower := strings.ToLower(p)
	switch {
	case strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		return readArchive(p, fn)
	case strings.HasSuffix(lower, ".jsonl"), strings.HasSuffix(lower, ".json"):
		return withFile(p, func(f *os.File) error { return ReadJSONL(f, Fields{}, fn) })
	case fileKind(lower) != "":
		return readFile(filepath.Dir(p), filepath.Base(p), fn)
	}
	return fmt.Errorf("read corpus %s: unknown kind of collection", p)
}

// limitDocs wraps fn so that it returns errLimit after the limit-th document.
func limitDocs(limit int, fn func(Doc) error) func(Doc) error {
	if limit <= 0 {
		return fn
	}
	n := 0
	return func(d Doc) error {
		if err := fn(d); err != nil {
			return err
		}
		n++
		if n >= limit {
			return errLimit
		}
		return nil
	}
}

// withFile opens p, runs do and closes the file.
func withFile(p string, do func(*os.File) error) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("read corpus: %w", err)
	}
	defer f.Close()
	return do(f)
}

// readArchive reads a .tar.gz holding Reuters-21578 or 20 Newsgroups (or both).
func readArchive(p string, fn func(Doc) error) error {
	return withFile(p, func(f *os.File) error {
		t := tarDocs{reuters: true, news: true, fn: fn}
		if err := t.read(f); err != nil {
			return err
		}
		if t.n == 0 {
			return fmt.Errorf("read %s: no Reuters-21578 or 20 Newsgroups members", p)
		}
		return nil
	})
}

// tarDocs walks a gzip-compressed tar stream and reads the members it recognises.
type tarDocs struct {
	reuters, news bool // which kinds of member to read
	fn            func(Doc) error
	n             int // documents delivered
	buf           bytes.Buffer
}

func (t *tarDocs) read(r io.Reader) error {
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 256<<10))
	if err != nil {
		return fmt.Errorf("read archive: %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read archive: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		if err := t.member(hdr.Name, tr); err != nil {
			return err
		}
	}
}

// member reads one archive member if it is a document the walker wants.
func (t *tarDocs) member(name string, r io.Reader) error {
	count := func(d Doc) error { t.n++; return t.fn(d) }
	base := path.Base(name)
	if t.reuters && strings.HasPrefix(base, "reut2-") && strings.HasSuffix(base, ".sgm") {
		return ReadReuters(r, base, count)
	}
	if _, _, _, ok := newsPath(name); !t.news || !ok {
		return nil
	}
	t.buf.Reset()
	if _, err := t.buf.ReadFrom(r); err != nil {
		return fmt.Errorf("read archive member %s: %w", name, err)
	}
	d, _ := parseNews(name, t.buf.Bytes())
	return count(d)
}
