package lsh

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkShingles(b *testing.B) {
	s := testSketcher(b, Params{})
	text := randomText(rand.New(rand.NewPCG(1, 1)), 3<<10)
	dst := s.Shingles(nil, text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		dst = s.Shingles(dst[:0], text)
	}
}

func BenchmarkSignature(b *testing.B) {
	s := testSketcher(b, Params{})
	shingles, _ := setPair(rand.New(rand.NewPCG(1, 2)), 500, 500)
	sig := s.Signature(nil, shingles)
	b.ReportAllocs()
	for b.Loop() {
		sig = s.Signature(sig, shingles)
	}
}

func BenchmarkBandKeys(b *testing.B) {
	s := testSketcher(b, Params{})
	shingles, _ := setPair(rand.New(rand.NewPCG(1, 3)), 500, 500)
	sig := s.Signature(nil, shingles)
	keys := s.BandKeys(nil, sig)
	b.ReportAllocs()
	for b.Loop() {
		keys = s.BandKeys(keys[:0], sig)
	}
}

func BenchmarkSimilarity(b *testing.B) {
	s := testSketcher(b, Params{})
	x, y := setPair(rand.New(rand.NewPCG(1, 4)), 400, 500)
	sx, sy := s.Signature(nil, x), s.Signature(nil, y)
	b.ReportAllocs()
	var sum float64
	for b.Loop() {
		sum += Similarity(sx, sy)
	}
	_ = sum
}

func BenchmarkOptimalBands(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		OptimalBands(0.8, 128, 0.5, 0.5)
	}
}
