package cluster

import (
	"sync"
	"testing"
)

// Figures: go test -run '^$' -bench . -benchtime 3x ./offline/algo/cluster/

// benchNodes and benchNoise give a planted graph of 1M documents and about 3M edges.
const (
	benchNodes = 1 << 20
	benchNoise = 50_000
)

// benchEdges and benchGraph are built once per test binary and shared by the benchmarks.
var (
	benchEdges = sync.OnceValue(func() []Edge { return plantedEdges(benchNodes, benchNoise, 1) })
	benchGraph = sync.OnceValue(func() *Graph {
		g, err := NewGraph(benchNodes, benchEdges())
		if err != nil {
			panic(err)
		}
		return g
	})
)

func BenchmarkNewGraph(b *testing.B) {
	edges := benchEdges()
	b.ReportAllocs()
	var g *Graph
	for b.Loop() {
		g, _ = NewGraph(benchNodes, edges)
	}
	b.ReportMetric(float64(g.M()), "edges")
	b.ReportMetric(float64(g.Bytes())/(1<<20), "graph-MiB")
}

func BenchmarkAlgorithm(b *testing.B) {
	g := benchGraph()
	for _, name := range Names() {
		alg, _ := ByName(name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var c Clustering
			for b.Loop() {
				c = alg(g)
			}
			b.ReportMetric(float64(c.K), "clusters")
		})
	}
}
