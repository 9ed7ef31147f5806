package corpus

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"testing"
)

// tarGz builds a .tar.gz in memory from name/content pairs.
func tarGz(t *testing.T, members ...string) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := 0; i < len(members); i += 2 {
		hdr := &tar.Header{Name: members[i], Mode: 0o644, Size: int64(len(members[i+1])), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(members[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func TestRead20News(t *testing.T) {
	arch := tarGz(t,
		"20news-bydate/README", "not an article",
		"20news-bydate/20news-bydate-train/rec.autos/1001",
		"From: ann@example.edu (Ann)\nSubject: Re: brake\n  pads\nNewsgroups: rec.autos,misc.forsale\nLines: 2\n\n\nMy brakes squeal.\n> quoted\n\n",
		"20news-bydate/20news-bydate-test/sci.space/2002",
		" folded!path!from!a!cut!header\nSubject: Caf\xe9 launch\r\nLines: 1\r\n\r\nOrbit at dawn.\r\n",
		"20news-bydate-test/sci.space/2003", "No headers at all: this is text.\n",
		"20news-bydate/20news-bydate-dev/sci.space/9", "unknown split, skipped",
	)
	var docs []Doc
	if err := Read20News(arch, func(d Doc) error { docs = append(docs, d); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Doc{
		{ID: "20news/train/rec.autos/1001", URL: "20news-bydate-train/rec.autos/1001",
			Title: "Re: brake pads", Body: "My brakes squeal.\n> quoted", Group: "rec.autos,misc.forsale"},
		{ID: "20news/test/sci.space/2002", URL: "20news-bydate-test/sci.space/2002",
			Title: "Café launch", Body: "Orbit at dawn.", Group: "sci.space"},
		{ID: "20news/test/sci.space/2003", URL: "20news-bydate-test/sci.space/2003",
			Body: "No headers at all: this is text.", Group: "sci.space"},
	}
	if len(docs) != len(want) {
		t.Fatalf("got %d docs, want %d: %+v", len(docs), len(want), docs)
	}
	for i := range want {
		if docs[i] != want[i] {
			t.Errorf("doc %d:\n got %+v\nwant %+v", i, docs[i], want[i])
		}
	}
}

func TestRead20NewsErrors(t *testing.T) {
	if err := Read20News(tarGz(t, "a/b", "c"), func(Doc) error { return nil }); err == nil {
		t.Error("archive without articles: no error")
	}
	if err := Read20News(bytes.NewBufferString("not gzip"), func(Doc) error { return nil }); err == nil {
		t.Error("not gzip: no error")
	}
}
