package state_test

import (
	"fmt"
	"log"

	"github.com/dedupstream/dedupstream/state"
)

// A document is looked up with its own sequence number as "before", so it can
// only match documents stored earlier, and is stored after its verdict is known.
func Example() {
	st, err := state.Open(state.Options{InMemory: true, SketchVersion: "minhash128-b16r8-w5"})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	first := state.Doc{Seq: st.Reserve(), ID: "a", ContentHash: 1, Verdict: 1, Bands: []uint64{10, 20}}
	if err := st.Put([]state.Doc{first}); err != nil {
		log.Fatal(err)
	}

	seq := st.Reserve()
	cands, capped, err := st.Candidates(nil, []uint64{99, 20}, seq)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range cands {
		fmt.Printf("doc %d (%s) shares a band with doc %d\n", seq, c.ID, c.Seq)
	}
	fmt.Println("buckets cut:", capped.Buckets)
	// Output:
	// doc 2 (a) shares a band with doc 1
	// buckets cut: 0
}
