package quality

import (
	"slices"
	"testing"
)

// TestClusteringPairs: every pair within a cluster, sorted, none across clusters.
func TestClusteringPairs(t *testing.T) {
	c, err := FromGroups([][]string{{"d", "a", "c"}, {"b"}, {"f", "e"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{"a", "c"}, {"a", "d"}, {"c", "d"}, {"e", "f"}}
	if got := c.Pairs(); !slices.Equal(got, want) || c.PairCount() != 4 {
		t.Errorf("pairs %v (count %d), want %v", got, c.PairCount(), want)
	}
	empty, _ := FromGroups(nil)
	if len(empty.Pairs()) != 0 || empty.PairCount() != 0 {
		t.Error("pairs of an empty clustering")
	}
}
