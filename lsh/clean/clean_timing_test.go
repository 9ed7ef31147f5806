package clean

import (
	"os"
	"path/filepath"
	"testing"
)

func benchInput(b *testing.B, name string) []byte {
	b.Helper()
	page, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		b.Fatal(err)
	}
	return page
}

func BenchmarkText(b *testing.B) {
	for _, name := range []string{"bench/en.txt", "bench/ru.txt", "forum.txt"} {
		text := benchInput(b, name)
		b.Run(filepath.Base(name), func(b *testing.B) {
			c := New(Options{})
			dst := make([]byte, 0, 2*len(text))
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = c.Text(dst[:0], text)
			}
		})
	}
}

func BenchmarkHTML(b *testing.B) {
	names, _ := filepath.Glob(filepath.Join(goldenDir, "*.html"))
	for _, path := range names {
		page := benchInput(b, filepath.Base(path))
		b.Run(filepath.Base(path), func(b *testing.B) {
			c := New(Options{})
			dst := make([]byte, 0, len(page))
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = c.HTML(dst[:0], page)
			}
		})
	}
}
