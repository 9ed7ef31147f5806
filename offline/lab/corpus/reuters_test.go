package corpus

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func readReutersFile(t *testing.T, p string) []Doc {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []Doc
	if err := ReadReuters(f, "mini.sgm", func(d Doc) error { docs = append(docs, d); return nil }); err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestReadReuters(t *testing.T) {
	docs := readReutersFile(t, "testdata/dir/reuters/mini.sgm")
	want := []Doc{{
		ID: "reuters/mini.sgm/NEWID=7", URL: "mini.sgm#NEWID=7", Group: "grain,wheat",
		Title: "PRAIRIE CO-OP <PWC> RAISES WHEAT ESTIMATE",
		Body: "Prairie Wheat Co-op <PWC> said its\nmembers expect a larger spring crop than last year & more\n" +
			"storage will be needed.\n    The co-op said the Café Avenue elevator will reopen.\n Reuter",
	}, {
		ID: "reuters/mini.sgm/NEWID=8", URL: "mini.sgm#NEWID=8",
		Title: "LAKE FREIGHT RATES UNCHANGED THIS WEEK",
		Body:  "******LAKE FREIGHT RATES UNCHANGED THIS WEEK\nBlah blah blah.",
	}, {
		ID: "reuters/mini.sgm/NEWID=9", URL: "mini.sgm#NEWID=9", Group: "money-fx",
		Body: "HARBOUR BOARD TABLE - MARCH 3\n Berths in use.............12 vs.......10\n" +
			" Ships waiting..............3 vs........5\n\n Reuter",
	}}
	if len(docs) != len(want) {
		t.Fatalf("got %d docs, want %d: %+v", len(docs), len(want), docs)
	}
	for i := range want {
		if docs[i] != want[i] {
			t.Errorf("doc %d:\n got %+v\nwant %+v", i, docs[i], want[i])
		}
	}
}

func TestReadReutersErrors(t *testing.T) {
	f := func(in, wantErr string) {
		t.Helper()
		err := ReadReuters(strings.NewReader(in), "x.sgm", func(Doc) error { return nil })
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ReadReuters(%.40q) = %v, want error containing %q", in, err, wantErr)
		}
	}
	f(`<REUTERS NEWID="1"><TEXT>cut off`, "read reuters x.sgm: unterminated REUTERS")
	f(`<REUTERS OLDID="1"><TEXT>x</TEXT></REUTERS>`, "without NEWID")
	f(`<REUTERS XNEWID="1"></REUTERS>`, "without NEWID")

	stop := errors.New("stop")
	n := 0
	in := strings.Repeat(`<REUTERS NEWID="1"></REUTERS>`, 5)
	err := ReadReuters(strings.NewReader(in), "x.sgm", func(Doc) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("callback error: got %v after %d docs, want stop after 1", err, n)
	}
}

func TestUnescapeSGML(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := cleanText(unescapeSGML(in)); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
	f("a &lt;b&gt; &amp; c", "a <b> & c")
	f("&#3;end&#5;&#30;", "end")
	f("AT&T; &amp &#x41;&#65;", "AT&T; &amp AA")
	f("&#0;&#xD800;&#;", "\uFFFD\uFFFD\uFFFD")
	f("&&;", "&&;")
}

func TestToUTF8(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := toUTF8([]byte(in)); got != want {
			t.Errorf("toUTF8(%q) = %q, want %q", in, got, want)
		}
	}
	f("plain", "plain")
	f("ёж", "ёж")
	f("caf\xe9", "café")
	f("\x93q\x94 \x80\x81", "“q” €")
}

func FuzzReadReuters(f *testing.F) {
	b, err := os.ReadFile("testdata/dir/reuters/mini.sgm")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`<REUTERS NEWID="1"><TEXT><TITLE>&#</TITLE></TEXT></REUTERS>`))
	f.Add([]byte(`<REUTERS NEWID=""><TOPICS><D>a</TOPICS></REUTERS></REUTERS>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		_ = ReadReuters(strings.NewReader(string(in)), "f.sgm", func(d Doc) error {
			for _, s := range []string{d.ID, d.Title, d.Body, d.Group} {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 in %+v", d)
				}
			}
			return nil
		})
	})
}
