package lsh

import (
	"math/rand/v2"
	"testing"
)

// FuzzCompare feeds arbitrary bytes to every method's Compare, which parses
// stored sketches: it must never panic, and whatever it accepts must give
// estimates in [0, 1].
func FuzzCompare(f *testing.F) {
	ms := allMethods(f, testVocabulary(20))
	r := rand.New(rand.NewPCG(6, 6))
	var sc Scratch
	for _, m := range ms {
		a, _ := m.Sketch(&sc, randomText(r, 300), nil, nil)
		b, _ := m.Sketch(&sc, randomText(r, 300), nil, nil)
		f.Add(a, b)
	}
	f.Add([]byte{}, []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		for _, m := range ms {
			e, err := m.Compare(a, b)
			if err != nil {
				continue
			}
			for _, x := range []float64{e.Resemblance, e.AinB, e.BinA} {
				if !(x >= 0 && x <= 1) {
					t.Fatalf("%s: Compare(%x, %x) = %+v", m.Version(), a, b, e)
				}
			}
		}
	})
}
