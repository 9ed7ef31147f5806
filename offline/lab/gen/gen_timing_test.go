package gen

import (
	"strings"
	"testing"
)

func BenchmarkNext(b *testing.B) {
	g := New(Options{Seed: 1})
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += len(g.Next().HTML)
	}
	b.SetBytes(int64(n / b.N))
}

func BenchmarkWrap(b *testing.B) {
	g := New(Options{Seed: 1, CopyRate: 0.5})
	body := strings.Join(articleText(New(Options{Seed: 2, Russian: -1}).Next().HTML)[1:], "\n\n")
	b.ReportAllocs()
	for b.Loop() {
		g.Wrap("A title", body, "doc")
	}
}
