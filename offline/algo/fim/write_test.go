package fim_test

import (
	"bytes"
	"testing"

	"github.com/dedupstream/dedupstream/offline/algo/fim"
)

// TestWriteItemsets: one FIMI output line per itemset, items then support.
func TestWriteItemsets(t *testing.T) {
	var b bytes.Buffer
	w := fim.WriteItemsets(&b)
	for _, s := range []struct {
		items   []int32
		support int
	}{{[]int32{3, 7, 12}, 5}, {[]int32{1}, 10}, {nil, 4}} {
		if err := w(s.items, s.support); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := b.String(), "3 7 12 (5)\n1 (10)\n (4)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
