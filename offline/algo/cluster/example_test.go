package cluster_test

import (
	"fmt"

	"github.com/dedupstream/dedupstream/offline/algo/cluster"
)

func ExampleByName() {
	// Documents 0..4 in arrival order and their verified similar pairs.
	g, err := cluster.NewGraph(5, []cluster.Edge{
		{U: 0, V: 1, W: 0.9}, {U: 2, V: 3, W: 0.8}, {U: 1, V: 2, W: 0.7},
		{U: 3, V: 4, W: 0.6}, {U: 1, V: 4, W: 0.5},
	})
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"components", "center", "merge-center", "star"} {
		alg, _ := cluster.ByName(name)
		c := alg(g)
		fmt.Println(name, c.Clusters(), "centres", c.Centres)
	}
	// Output:
	// components [[0 1 2 3 4]] centres []
	// center [[0 1] [2 3] [4]] centres [0 2 4]
	// merge-center [[0 1 2 3] [4]] centres [0 2 4]
	// star [[0 1] [2 3 4]] centres [1 3]
}
