package quality

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// Figures: go test -run '^$' -bench . -benchtime 3x ./offline/lab/quality/

const benchDocs = 1 << 20

// benchLabels returns a true clustering of benchDocs documents in clusters of 1..15 and a
// found one that moves a tenth of the documents to random clusters.
func benchLabels() (truth, found []int32) {
	rng := rand.New(rand.NewPCG(1, 7))
	truth = randomLabels(rng, benchDocs, 15)
	found = append([]int32(nil), truth...)
	for range benchDocs / 10 {
		found[rng.IntN(benchDocs)] = int32(rng.IntN(benchDocs))
	}
	return truth, found
}

func benchIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("reuters/reut2-%03d.sgm/NEWID=%d", i%22, i)
	}
	return ids
}

func BenchmarkScore(b *testing.B) {
	truth, found := benchLabels()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Score(truth, found); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchDocs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkCompare(b *testing.B) {
	truth, found := benchLabels()
	ids := benchIDs(benchDocs)
	tc, _ := FromLabels(ids, truth)
	fc, _ := FromLabels(ids, found)
	b.ReportAllocs()
	for b.Loop() {
		Compare(tc, fc)
	}
}

func BenchmarkReadClustering(b *testing.B) {
	truth, _ := benchLabels()
	var buf bytes.Buffer
	for i, id := range benchIDs(benchDocs) {
		fmt.Fprintf(&buf, "%s\tc%d\n", id, truth[i])
	}
	b.ReportAllocs()
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := ReadClustering(bytes.NewReader(buf.Bytes()), FormatAuto); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPairs returns two sorted lists of about benchDocs pairs sharing 80% of them.
func benchPairs() (ours, theirs []Pair) {
	rng := rand.New(rand.NewPCG(2, 7))
	ids := benchIDs(benchDocs)
	for range benchDocs {
		p := MakePair(ids[rng.IntN(benchDocs)], ids[rng.IntN(benchDocs)])
		switch r := rng.IntN(10); {
		case r < 8:
			ours, theirs = append(ours, p), append(theirs, p)
		case r == 8:
			ours = append(ours, p)
		default:
			theirs = append(theirs, p)
		}
	}
	return SortPairs(ours), SortPairs(theirs)
}

func BenchmarkComparePairs(b *testing.B) {
	ours, theirs := benchPairs()
	b.ReportAllocs()
	for b.Loop() {
		w := NewPairWriter(io.Discard)
		if _, err := ComparePairs(ours, theirs, w.Write, w.Write); err != nil {
			b.Fatal(err)
		}
	}
}

func writePairs(ps []Pair) []byte {
	var buf bytes.Buffer
	w := NewPairWriter(&buf)
	for _, p := range ps {
		_ = w.Write(p)
	}
	_ = w.Flush()
	return buf.Bytes()
}

func BenchmarkCompareStreams(b *testing.B) {
	ours, theirs := benchPairs()
	ob, tb := writePairs(ours), writePairs(theirs)
	b.ReportAllocs()
	b.SetBytes(int64(len(ob) + len(tb)))
	for b.Loop() {
		so, st := NewPairScanner(bytes.NewReader(ob)), NewPairScanner(bytes.NewReader(tb))
		if _, err := CompareStreams(so, st, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadPairs(b *testing.B) {
	ours, _ := benchPairs()
	data := writePairs(ours)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadPairs(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
