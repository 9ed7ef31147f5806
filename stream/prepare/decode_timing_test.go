package prepare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/dedupstream/dedupstream/lsh/clean"
)

// BenchmarkDecode is decode alone on valid UTF-8 input with no charset named:
// the hand-written pages of testdata/clean as raw values and as JSON records.
// It measures what finding a page's character encoding costs the common case.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"news_en.html", "news_ru.html"} {
		page, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clean", name))
		if err != nil {
			b.Fatal(err)
		}
		record, err := json.Marshal(map[string]string{"id": "d1", "url": "http://example.com/", "html": string(page)})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("raw/"+name, func(b *testing.B) { benchDecode(b, FormatAuto, page) })
		b.Run("json/"+name, func(b *testing.B) { benchDecode(b, FormatAuto, record) })
	}
}

func benchDecode(b *testing.B, format Format, value []byte) {
	benchDecodeWith(b, testDecoder(format), value, nil)
}

// benchDecodeWith reports, besides time, the CPU time of the benchmark's own
// thread per record (cpu-ns/op), which other work on a shared machine
// disturbs far less than the time.
func benchDecodeWith(b *testing.B, d decoder, value []byte, hs []kafka.Header) {
	m := &kafka.Message{Topic: "pages", Key: []byte("k"), Value: value, Headers: hs}
	b.SetBytes(int64(len(value)))
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	for b.Loop() {
		if _, err := d.decode(m); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := threadCPU() - start; cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkDecodeFloor is the checks any decode of a raw UTF-8 page makes —
// no NUL byte, valid UTF-8, looks like HTML — outside decode: the floor of
// BenchmarkDecode/raw. Compared between two builds, it tells what decode
// itself changed from where the linker put utf8.Valid's loop, which moves
// its time by tens of percent from one binary to the next.
func BenchmarkDecodeFloor(b *testing.B) {
	for _, name := range []string{"news_en.html", "news_ru.html"} {
		page, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clean", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := threadCPU()
			for b.Loop() {
				if bytes.IndexByte(page, 0) >= 0 || !utf8.Valid(page) || !clean.LooksLikeHTML(page) {
					b.Fatal("not a UTF-8 page")
				}
			}
			if cpu := threadCPU() - start; cpu > 0 {
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkDecodeCharset is decode of the pages that are not the fast path: a
// UTF-8 page whose header names utf-8, and the legacy golden pages of
// testdata/charset, decoded to new UTF-8 buffers.
func BenchmarkDecodeCharset(b *testing.B) {
	page, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clean", "news_ru.html"))
	if err != nil {
		b.Fatal(err)
	}
	utf8Header := []kafka.Header{{Key: "Content-Type", Value: []byte("text/html; charset=UTF-8")}}
	b.Run("header-utf-8/news_ru.html", func(b *testing.B) { benchDecodeWith(b, testDecoder(FormatAuto), page, utf8Header) })
	for _, g := range charsetGolden {
		page, err := os.ReadFile(filepath.Join("testdata", "charset", g.file))
		if err != nil {
			b.Fatal(err)
		}
		var hs []kafka.Header
		if g.named != "" {
			hs = []kafka.Header{{Key: "Content-Type", Value: []byte(g.named)}}
		}
		b.Run(g.file, func(b *testing.B) { benchDecodeWith(b, testDecoder(FormatAuto), page, hs) })
	}
}

// BenchmarkDecodeFastText is the fast path on a record shaped like the
// bench's (a 20 Newsgroups post as a JSON body): 3 KB of text in lines of
// about 60 bytes, each ending in an escaped newline, a few escaped quotes.
func BenchmarkDecodeFastText(b *testing.B) {
	var body strings.Builder
	for i := 0; body.Len() < 3<<10; i++ {
		fmt.Fprintf(&body, "line %d of the post, in which someone says \"something\" again\n", i)
	}
	record, err := json.Marshal(map[string]string{"id": "d1", "url": "http://example.com/", "body": body.String()})
	if err != nil {
		b.Fatal(err)
	}
	d := testDecoder(FormatAuto)
	var buf []byte
	b.SetBytes(int64(len(record)))
	b.ReportAllocs()
	for b.Loop() {
		var ok bool
		if _, buf, ok = d.fastRecord(record, buf); !ok {
			b.Fatal("not the fast path")
		}
	}
}

// BenchmarkDecodeDetect is decode of undeclared pages that are not UTF-8:
// testdata/clean/news_ru.html in windows-1251 and koi8-r, and the golden
// Japanese page in shift_jis, each without its <meta charset>, so that its
// encoding is detected from its bytes and the page decoded with it.
func BenchmarkDecodeDetect(b *testing.B) {
	ru, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clean", "news_ru.html"))
	if err != nil {
		b.Fatal(err)
	}
	ja, err := os.ReadFile(filepath.Join("testdata", "charset", "ja-shift_jis.src.html"))
	if err != nil {
		b.Fatal(err)
	}
	meta := regexp.MustCompile(`(?i)<meta[^>]*charset[^>]*>`)
	for _, p := range []struct{ name, charset string }{{"news_ru.html", "windows-1251"}, {"news_ru.html", "koi8-r"}, {"ja-shift_jis.src.html", "shift_jis"}} {
		src := ru
		if p.charset == "shift_jis" {
			src = ja
		}
		e, err := htmlindex.Get(p.charset)
		if err != nil {
			b.Fatal(err)
		}
		page, err := e.NewEncoder().Bytes(meta.ReplaceAll(src, nil))
		if err != nil {
			b.Fatal(err)
		}
		d := testDecoder(FormatAuto)
		if rec, err := d.decode(&kafka.Message{Value: page}); err != nil || rec.Charset != p.charset || !rec.CharsetDetected {
			b.Fatalf("%s in %s: %v, %q", p.name, p.charset, err, rec.Charset)
		}
		b.Run(p.charset+"/"+p.name, func(b *testing.B) { benchDecodeWith(b, d, page, nil) })
	}
}
