package lsh_test

import (
	"fmt"

	"github.com/dedupstream/dedupstream/lsh"
)

// The pipeline's use of a Method: sketch each document once, look its keys
// up, and verify a candidate by comparing the encoded sketches.
func ExampleNewMethod() {
	a := []byte("the central bank raised its key interest rate by a quarter point on tuesday " +
		"citing persistent inflation in services and a tight labour market while officials " +
		"signalled that further increases were possible if price pressures failed to ease")
	b := []byte("the central bank raised its key interest rate by a quarter point on wednesday " +
		"citing persistent inflation in services and a tight labour market while officials " +
		"signalled that further increases were possible if price pressures failed to ease")

	for _, name := range []string{lsh.MethodFull, lsh.MethodOPH, lsh.MethodModM, lsh.MethodSimHash} {
		c := lsh.Config{Method: name, Params: lsh.Params{Shingle: 3}, ModM: lsh.ModMParams{M: 4}}
		c.EnsureDefaults()
		m, err := lsh.NewMethod(c, nil)
		if err != nil {
			panic(err)
		}
		var sc lsh.Scratch
		sa, ka := m.Sketch(&sc, a, nil, nil)
		sb, kb := m.Sketch(&sc, b, nil, nil)
		e, err := m.Compare(sa, sb)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d-byte sketch, %d keys, %d shared; resemblance %.3f, near %v\n",
			m.Version(), len(sa), len(ka), shared(ka, kb), e.Resemblance, e.Near)
	}
	// Output:
	// full-w3-k1024: 288-byte sketch, 36 keys, 33 shared; resemblance 0.846, near true
	// oph128-b10r5-w3-16bit: 256-byte sketch, 10 keys, 7 shared; resemblance 0.891, near true
	// modm4-n64-w3: 288-byte sketch, 21 keys, 19 shared; resemblance 0.846, near true
	// simhash64-k6b8-w3-tfset: 8-byte sketch, 28 keys, 3 shared; resemblance 0.828, near false
}

func shared(a, b []uint64) int {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				n++
				break
			}
		}
	}
	return n
}
