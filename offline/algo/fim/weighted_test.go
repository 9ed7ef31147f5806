package fim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWeightedMatchesRepeated mines random weighted datasets and the datasets
// with every transaction repeated weight times: the itemsets and supports must
// be the same, closed and maximal, and both must match brute force.
func TestWeightedMatchesRepeated(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for round := range 60 {
		n := 1 + r.IntN(10)
		tx := plantedContext(r, n, r.IntN(25))
		if round%2 == 0 {
			tx = randomContext(r, n, len(tx), 0.4)
		}
		weights := make([]int32, len(tx))
		var repeated [][]int32
		for k := range tx {
			weights[k] = 1 + r.Int32N(4)
			for range weights[k] {
				repeated = append(repeated, tx[k])
			}
		}
		wds, err := NewWeightedDataset(tx, weights)
		if err != nil {
			t.Fatal(err)
		}
		if wds.TotalWeight() != int64(len(repeated)) {
			t.Fatalf("total weight %d, want %d", wds.TotalWeight(), len(repeated))
		}
		for _, minsup := range []int{1, 2, 3, 1 + len(repeated)/3, max(1, len(repeated))} {
			for _, maximal := range []bool{false, true} {
				want := bruteForce(repeated, n, minsup, maximal)
				got := collect(t, wds, Options{MinSupport: minsup, Maximal: maximal})
				if !slices.Equal(got, want) {
					t.Fatalf("round %d minsup %d maximal %v weights %v on\n%s\ngot  %q\nwant %q",
						round, minsup, maximal, weights, dump(tx), got, want)
				}
			}
		}
	}
}

// TestWeightedSparseItems takes the sparse path of item counting (items far
// apart) with weights.
func TestWeightedSparseItems(t *testing.T) {
	tx := [][]int32{{5, 1 << 28}, {5, 1 << 28}, {5}, {1 << 28, 1 << 29}}
	ds, err := NewWeightedDataset(tx, []int32{3, 1, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, ds, Options{MinSupport: 2})
	want := []string{"268435456 (5)", "5 (6)", "5 268435456 (4)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNewWeightedDatasetErrors(t *testing.T) {
	if _, err := NewWeightedDataset([][]int32{{1}}, []int32{0}); err == nil {
		t.Error("weight 0 accepted")
	}
	if _, err := NewWeightedDataset([][]int32{{1}, {2}}, []int32{1}); err == nil {
		t.Error("fewer weights than transactions accepted")
	}
}
