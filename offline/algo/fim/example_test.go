package fim_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dedupstream/dedupstream/offline/algo/fim"
)

func ExampleMine() {
	// Four documents (lines) and the fingerprints (items) each holds.
	ds, err := fim.ReadFIMI(strings.NewReader("1 2 3 4\n1 2 3\n1 2 5\n2 5\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var lines []string
	res, err := fim.Mine(context.Background(), ds, fim.Options{MinSupport: 2}, func(items []int32, support int) error {
		lines = append(lines, fmt.Sprintf("%v (%d)", items, support))
		return nil
	})
	fmt.Println(strings.Join(slices.Sorted(slices.Values(lines)), "\n"))
	fmt.Println(res.Itemsets, res.Complete, err)
	// Output:
	// [1 2 3] (2)
	// [1 2] (3)
	// [2 5] (2)
	// [2] (4)
	// 4 true <nil>
}
