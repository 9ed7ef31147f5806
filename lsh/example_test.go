package lsh_test

import (
	"fmt"

	"github.com/dedupstream/dedupstream/lsh"
)

func Example() {
	p := lsh.Params{Shingle: 3}
	p.EnsureDefaults()
	if err := p.Validate(); err != nil {
		panic(err)
	}
	s := lsh.NewSketcher(p)

	// Normalised text (see lsh/clean): a wire story and its syndicated copy,
	// which differ in one word.
	a := []byte("the central bank raised its key interest rate by a quarter point on tuesday " +
		"citing persistent inflation in services and a tight labour market while officials " +
		"signalled that further increases were possible if price pressures failed to ease " +
		"over the coming months according to a statement released after the meeting")
	b := []byte("the central bank raised its key interest rate by a quarter point on wednesday " +
		"citing persistent inflation in services and a tight labour market while officials " +
		"signalled that further increases were possible if price pressures failed to ease " +
		"over the coming months according to a statement released after the meeting")

	sha, shb := s.Shingles(nil, a), s.Shingles(nil, b)
	siga, sigb := s.Signature(nil, sha), s.Signature(nil, shb)
	ka, kb := s.BandKeys(nil, siga), s.BandKeys(nil, sigb)
	shared := 0
	for i := range ka {
		if ka[i] == kb[i] {
			shared++
		}
	}
	fmt.Println("sketch:", p.Version())
	fmt.Printf("exact resemblance: %.3f\n", lsh.Jaccard(sha, shb))
	fmt.Printf("estimated: %.3f\n", lsh.Similarity(siga, sigb))
	fmt.Printf("bands shared: %d of %d\n", shared, len(ka))
	// Output:
	// sketch: minhash128-b10r5-w3
	// exact resemblance: 0.882
	// estimated: 0.859
	// bands shared: 6 of 10
}
