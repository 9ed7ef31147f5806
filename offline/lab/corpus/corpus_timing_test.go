package corpus

import (
	"os"
	"testing"
)

// benchmarkRead reads a whole real corpus per iteration and reports documents/s.
func benchmarkRead(b *testing.B, name string) {
	p := corpusPath(b, name)
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(st.Size())
	docs := 0
	for b.Loop() {
		if err := Read(p, 0, func(Doc) error { docs++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkReadReuters(b *testing.B) { benchmarkRead(b, "reuters21578.tar.gz") }

func BenchmarkRead20News(b *testing.B) { benchmarkRead(b, "20news-bydate.tar.gz") }
