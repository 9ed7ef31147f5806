package fim

import (
	"context"
	"fmt"
	"testing"
)

func benchmarkMine(b *testing.B, name string, minsup int, maximal bool) {
	ds := fimiDataset(b, name)
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		res, err := Mine(context.Background(), ds, Options{MinSupport: minsup, Maximal: maximal}, func([]int32, int) error { return nil })
		if err != nil || !res.Complete {
			b.Fatal(res, err)
		}
		n = res.Itemsets
	}
	b.ReportMetric(float64(n), "itemsets")
}

func BenchmarkMine(b *testing.B) {
	for _, c := range []struct {
		file   string
		minsup int
	}{
		{"chess.dat", 2000}, {"chess.dat", 1500},
		{"mushroom.dat", 500}, {"mushroom.dat", 100},
		{"retail.dat", 50}, {"retail.dat", 10},
		{"T10I4D100K.dat", 50}, {"T10I4D100K.dat", 10},
	} {
		for _, maximal := range []bool{false, true} {
			kind := "closed"
			if maximal {
				kind = "maximal"
			}
			b.Run(fmt.Sprintf("%s/%d/%s", c.file, c.minsup, kind), func(b *testing.B) {
				benchmarkMine(b, c.file, c.minsup, maximal)
			})
		}
	}
}

func BenchmarkReadFIMI(b *testing.B) {
	fimiPath(b, "retail.dat") // skip early when shared/fimi is absent
	for _, name := range []string{"retail.dat", "T10I4D100K.dat"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				fimiCache.Delete(name)
				fimiDataset(b, name)
			}
		})
	}
}
