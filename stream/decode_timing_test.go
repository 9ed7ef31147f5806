package stream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh/clean"
)

// BenchmarkDecode is decode alone on valid UTF-8 input with no charset named:
// the hand-written pages of testdata/clean as raw values and as JSON records.
// It measures what finding a page's character encoding costs the common case.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"news_en.html", "news_ru.html"} {
		page, err := os.ReadFile(filepath.Join("..", "testdata", "clean", name))
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
	d := testDecoder(format)
	m := &kafka.Message{Topic: "pages", Key: []byte("k"), Value: value}
	b.SetBytes(int64(len(value)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.decode(m, clean.LooksLikeHTML); err != nil {
			b.Fatal(err)
		}
	}
}
