package stream_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
)

// legacyPage is a golden page of testdata/charset: the file in its legacy
// encoding, the Content-Type header it travels with (if the page does not
// name its charset itself), and the charset it must be read in.
type legacyPage struct{ file, header, charset string }

var legacyPages = []legacyPage{
	{"ru-windows-1251.html", "", "windows-1251"},
	{"ru-koi8-r.html", "", "koi8-r"},
	{"fr-iso-8859-1.html", "", "windows-1252"},
	{"ja-shift_jis.html", "", "shift_jis"},
	{"uk-utf-16le.html", "", "utf-16le"},
	{"ru-windows-1251.txt", "text/plain; charset=windows-1251", "windows-1251"},
}

// TestLegacyCharsetPages streams each golden page after its UTF-8 source,
// over the embedded broker into real state: the legacy page is an exact
// duplicate of its source, forwarded with its own bytes and headers and its
// charset in dedup.charset. A Shift_JIS JSON record naming its charset in a
// field is one too, and so is the windows-1251 page sent without its
// header, its charset detected. A page with bytes its named charset lacks,
// and one that is no text in any encoding, are dead-lettered whole.
func TestLegacyCharsetPages(t *testing.T) {
	h := newHarness(t, 1)
	reg := prometheus.NewRegistry()
	h.reg = reg
	trace := kafka.Header{Key: "trace-id", Value: []byte("t1")}
	var msgs []kafka.Message
	for _, p := range legacyPages {
		page, src := readGolden(t, p.file)
		m := kafka.Message{Key: []byte(p.file), Value: page, Headers: []kafka.Header{trace}}
		if p.header != "" {
			m.Headers = append(m.Headers, kafka.Header{Key: "Content-Type", Value: []byte(p.header)})
		}
		msgs = append(msgs, kafka.Message{Key: []byte(p.file + ".utf8"), Value: src}, m)
	}
	_, jaSrc := readGolden(t, "ja-shift_jis.html")
	undeclared, _ := readGolden(t, "ru-windows-1251.txt")
	msgs = append(msgs,
		kafka.Message{Key: []byte("ja-json"), Value: shiftJISRecord(t, "ja-json", string(jaSrc))},
		kafka.Message{Key: []byte("undeclared"), Value: undeclared},
		kafka.Message{Key: []byte("no-text"), Value: []byte("\xe9\x9c\xc3\xb1\xd2\x8b\xfa")},
		kafka.Message{Key: []byte("not-1251"), Value: []byte("\xcc\xee\xf1\xea\xe2\xe0 \x98"), Headers: []kafka.Header{{Key: "Content-Type", Value: []byte("windows-1251")}}})
	h.process(msgs...)

	byKey := make(map[string]output)
	for _, o := range append(h.readAll(topicOut), h.readAll(topicDLQ)...) {
		byKey[o.key] = o
	}
	for _, p := range legacyPages {
		checkLegacy(t, byKey[p.file+".utf8"], "unique", "", "")
		checkLegacy(t, byKey[p.file], "exact_duplicate", p.file+".utf8", p.charset)
	}
	checkLegacy(t, byKey["ja-json"], "exact_duplicate", "ja-shift_jis.html.utf8", "shift_jis")
	checkLegacy(t, byKey["undeclared"], "exact_duplicate", "ru-windows-1251.txt.utf8", "windows-1251; detected")
	for _, m := range msgs {
		o := byKey[string(m.Key)]
		if !bytes.Equal(o.value, m.Value) {
			t.Errorf("%s: value changed on the way", m.Key)
		}
		for _, hd := range m.Headers {
			if o.headers[hd.Key] != string(hd.Value) {
				t.Errorf("%s: header %s lost", m.Key, hd.Key)
			}
		}
	}
	for key, class := range map[string]string{"no-text": "dedupstream.InvalidUTF8", "not-1251": "dedupstream.InvalidCharset"} {
		if o := byKey[key]; o.topic != topicDLQ || o.headers[stream.HeaderErrClass] != class || o.headers[stream.HeaderCharset] != "" {
			t.Errorf("%s: %s %v, want a dead letter of class %s", key, o.topic, o.headers, class)
		}
	}
	if n := charsetCount(t, reg, "windows-1251"); n != 3 {
		t.Errorf("dedupstream_charset_decoded_total{charset=\"windows-1251\"} = %v, want 3", n)
	}
}

// TestUndeclaredCharsetsCluster sends Russian pages as raw values, as kcat
// would, with no header and no <meta charset>: each in UTF-8, windows-1251
// and koi8-r, and a near-copy of each (a few words edited) likewise. The
// legacy pages' encodings are detected, and each page's six versions end
// in one cluster.
func TestUndeclaredCharsetsCluster(t *testing.T) {
	h := newHarness(t, 1)
	g := gen.New(gen.Options{Seed: 5, Russian: 1, CopyRate: 0.5, Kinds: []gen.Kind{gen.Edited}, EditRate: 0.01})
	var pages []gen.Page
	versions := make(map[string]int) // origin → pages taken
	for len(pages) < 4 {
		p := g.Next()
		if versions[p.Origin] < 2 && (p.Kind == gen.Original && len(versions) < 2 || p.Kind != gen.Original && versions[p.Origin] == 1) {
			versions[p.Origin]++
			pages = append(pages, p)
		}
	}
	var msgs []kafka.Message
	for _, p := range pages {
		// The page's article as plain text: the generator's pages say
		// <meta charset="utf-8">, which would name the charset.
		text := strings.Join(articleText(p.HTML), "\n\n")
		for _, enc := range []struct {
			name string
			e    encoding.Encoding
		}{{"utf-8", nil}, {"windows-1251", charmap.Windows1251}, {"koi8-r", charmap.KOI8R}} {
			v := []byte(text)
			if enc.e != nil {
				var err error
				if v, err = enc.e.NewEncoder().Bytes(v); err != nil {
					t.Fatal(err)
				}
			}
			key := p.ID + "/" + enc.name
			msgs = append(msgs, kafka.Message{Key: []byte(key), Value: v, Headers: []kafka.Header{{Key: "origin", Value: []byte(p.Origin)}}})
		}
	}
	h.process(msgs...)
	cluster := make(map[string]string) // origin → cluster
	outs := h.readAll(topicOut)
	if len(outs) != len(msgs) {
		t.Fatalf("%d outputs of %d pages (dead letters: %d)", len(outs), len(msgs), len(h.readAll(topicDLQ)))
	}
	for _, o := range outs {
		enc := o.key[strings.LastIndex(o.key, "/")+1:]
		want := enc + "; detected"
		if enc == "utf-8" {
			want = ""
		}
		if o.headers[stream.HeaderCharset] != want {
			t.Errorf("%s: dedup.charset %q, want %q", o.key, o.headers[stream.HeaderCharset], want)
		}
		origin := o.headers["origin"]
		if c, ok := cluster[origin]; ok && c != o.headers[stream.HeaderCluster] {
			t.Errorf("%s: cluster %s, but its original's other versions are in %s (%v)", o.key, o.headers[stream.HeaderCluster], c, o.headers)
		}
		cluster[origin] = o.headers[stream.HeaderCluster]
	}
	if len(cluster) != 2 {
		t.Errorf("%d originals, want 2 (%v)", len(cluster), cluster)
	}
}

// articleText is the title and paragraphs of a generated page.
func articleText(html string) []string {
	var out []string
	for _, tag := range []string{"h1", "p"} {
		for rest := html; ; {
			_, after, ok := strings.Cut(rest, "<"+tag+">")
			if !ok {
				break
			}
			var text string
			if text, rest, ok = strings.Cut(after, "</"+tag+">"); !ok {
				break
			}
			out = append(out, text)
		}
	}
	return out
}

func checkLegacy(t *testing.T, o output, verdict, of, charset string) {
	t.Helper()
	if o.topic != topicOut || o.headers[stream.HeaderVerdict] != verdict || o.headers[stream.HeaderOf] != of || o.headers[stream.HeaderCharset] != charset {
		t.Errorf("%s: %s %v; want %s of %q, dedup.charset %q", o.key, o.topic, o.headers, verdict, of, charset)
	}
}

// shiftJISRecord is a JSON record written in Shift_JIS that names its
// charset in a field.
func shiftJISRecord(t *testing.T, id, html string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{"id": id, "charset": "Shift_JIS", "html": html}); err != nil {
		t.Fatal(err)
	}
	b, err := japanese.ShiftJIS.NewEncoder().Bytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func charsetCount(t *testing.T, reg *prometheus.Registry, charset string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "dedupstream_charset_decoded_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == charset {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// readGolden reads a golden page of the decoder's tests
// (prepare/testdata/charset) and its UTF-8 source.
func readGolden(t *testing.T, file string) (page, src []byte) {
	t.Helper()
	dir := filepath.Join("prepare", "testdata", "charset")
	page, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Ext(file)
	if src, err = os.ReadFile(filepath.Join(dir, strings.TrimSuffix(file, ext)+".src"+ext)); err != nil {
		t.Fatal(err)
	}
	return page, src
}
