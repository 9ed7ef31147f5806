package stream

import (
	"slices"
	"testing"

	"github.com/dedupstream/dedupstream/state"
)

// TestOverlayCandidates: a batch's documents sharing any of the keys come
// back once each, in the order they were added, a key repeated within one
// document included.
func TestOverlayCandidates(t *testing.T) {
	docs := []state.Doc{
		{ID: "a", ContentHash: 1, Bands: []uint64{10, 20}},
		{ID: "b", ContentHash: 2, Bands: []uint64{20, 30}},
		{ID: "c", ContentHash: 3, Bands: []uint64{10, 10}},
		{ID: "d", ContentHash: 4, Bands: []uint64{40}},
	}
	o := newOverlay(docs, nil)
	for _, d := range docs {
		o.add(d)
	}
	ids := func(keys ...uint64) []string {
		var out []string
		for _, d := range o.candidates(nil, keys) {
			out = append(out, d.ID)
		}
		return out
	}
	for _, c := range []struct {
		keys []uint64
		want []string
	}{
		{[]uint64{30, 20, 10}, []string{"a", "b", "c"}},
		{[]uint64{10}, []string{"a", "c"}},
		{[]uint64{40, 40}, []string{"d"}},
		{[]uint64{50}, nil},
	} {
		if got := ids(c.keys...); !slices.Equal(got, c.want) {
			t.Errorf("candidates of %v: %v, want %v", c.keys, got, c.want)
		}
	}
	if len(o.keyDocs) != 6 { // c's second 10 is not chained twice
		t.Errorf("%d chain entries, want 6", len(o.keyDocs))
	}
}
