package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readDocs(t *testing.T, path string, limit int) []Doc {
	t.Helper()
	var docs []Doc
	if err := Read(path, limit, func(d Doc) error { docs = append(docs, d); return nil }); err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestReadDir(t *testing.T) {
	docs := readDocs(t, "testdata/dir", 0)
	want := []Doc{
		{ID: "dir/a.txt", URL: "a.txt", Body: "Plain text notes about river ferries.\n\nThe morning ferry leaves at seven.\n"},
		{ID: "dir/b.html", URL: "b.html", Title: "Новости & погода"},
		{ID: "reuters/reuters/mini.sgm/NEWID=7"},
		{ID: "reuters/reuters/mini.sgm/NEWID=8"},
		{ID: "reuters/reuters/mini.sgm/NEWID=9"},
		{ID: "dir/sub/c.htm", URL: "sub/c.htm", Body: "<html><body><p>No title here.</p></body></html>\n"},
		{ID: "dir/sub/latin1.txt", URL: "sub/latin1.txt", Body: "Café crème “quoted”\nsecond line\n"},
	}
	if len(docs) != len(want) {
		t.Fatalf("got %d docs, want %d: %+v", len(docs), len(want), docs)
	}
	for i, w := range want {
		d := docs[i]
		if d.ID != w.ID || (w.URL != "" && d.URL != w.URL) || d.Title != w.Title && w.Title != "" || (w.Body != "" && d.Body != w.Body) {
			t.Errorf("doc %d:\n got %+v\nwant %+v", i, d, w)
		}
	}
	if !strings.Contains(docs[1].Body, "Ёлка стоит во дворе") {
		t.Errorf("html body not kept as found: %q", docs[1].Body)
	}
}

func TestReadSingleFiles(t *testing.T) {
	f := func(path string, wantIDs ...string) {
		t.Helper()
		docs := readDocs(t, path, 0)
		var ids []string
		for _, d := range docs {
			ids = append(ids, d.ID)
		}
		if strings.Join(ids, " ") != strings.Join(wantIDs, " ") {
			t.Errorf("Read(%s) ids %v, want %v", path, ids, wantIDs)
		}
	}
	f("testdata/dir/sub/latin1.txt", "dir/latin1.txt")
	f("testdata/dir/reuters/mini.sgm", "reuters/mini.sgm/NEWID=7", "reuters/mini.sgm/NEWID=8", "reuters/mini.sgm/NEWID=9")
	f("testdata/docs.jsonl", "jsonl/a1", "jsonl/42", "jsonl/#4", "jsonl/c")
}

func TestReadLimitAndStop(t *testing.T) {
	if n := len(readDocs(t, "testdata/dir", 3)); n != 3 {
		t.Errorf("limit 3: %d docs", n)
	}
	stop := errors.New("stop")
	n := 0
	err := Read("testdata/dir", 0, func(Doc) error {
		n++
		if n == 4 {
			return stop
		}
		return nil
	})
	if err != stop || n != 4 {
		t.Errorf("stop at 4: err %v after %d docs", err, n)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "x.tar.gz")
	empty := filepath.Join(dir, "empty.tgz")
	if err := os.WriteFile(junk, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, tarGz(t, "README", "hello").Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), junk, empty, "testdata/dir/notes.md"} {
		if err := Read(p, 0, func(Doc) error { return nil }); err == nil {
			t.Errorf("Read(%s): no error", p)
		}
	}
}

func TestHTMLTitle(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := htmlTitle(in); got != want {
			t.Errorf("htmlTitle(%q) = %q, want %q", in, got, want)
		}
	}
	f("<title>A &lt; B</title>", "A < B")
	f("<TITLE lang=en>\n Two\n words </Title>", "Two words")
	f("<p>none</p>", "")
	f("<title>unclosed", "unclosed")
	f("<title", "")
}
