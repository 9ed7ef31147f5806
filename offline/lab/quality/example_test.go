package quality_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/dedupstream/dedupstream/offline/lab/quality"
)

func ExampleCompare() {
	truth, _ := quality.ReadClustering(strings.NewReader("a\tA\nb\tA\nc\tA\nd\tA\ne\tE\nf\tE\ng\tG\n"), quality.FormatAuto)
	found, _ := quality.FromGroups([][]string{{"a", "b", "e"}, {"c", "d"}, {"f", "g"}})
	s := quality.Compare(truth, found)
	fmt.Printf("Pr %.3f Re %.3f F1 %.3f CPr %.3f\n", s.Precision, s.Recall, s.F1, s.CPr)
	fmt.Printf("pairs: %d true, %d found, %d common\n", s.TruePairs, s.FoundPairs, s.CommonPairs)
	// Output:
	// Pr 0.786 Re 0.571 F1 0.662 CPr 0.444
	// pairs: 7 true, 5 found, 2 common
}

func ExampleComparePairs() {
	ours, _ := quality.ReadPairs(strings.NewReader("a,b\na,c\nc,b\n"))
	theirs, _ := quality.ReadPairs(strings.NewReader("id_a,id_b\nb,a\nd,c\n"))
	w := quality.NewPairWriter(os.Stdout)
	c, _ := quality.ComparePairs(ours, theirs, w.Write, nil)
	_ = w.Flush()
	fmt.Printf("%+v\n", c)
	// Output:
	// id_a,id_b
	// a,c
	// b,c
	// {Ours:3 Theirs:2 OnlyOurs:2 OnlyTheirs:1 Common:1}
}
