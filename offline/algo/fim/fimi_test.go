package fim

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
)

// fimiPath finds a FIMI file in ../shared/fimi beside the repository, or
// skips the test.
func fimiPath(t testing.TB, name string) string {
	t.Helper()
	p, err := corpus.Locate("fimi", name)
	if err != nil {
		t.Skip(err)
	}
	return p
}

var fimiCache sync.Map // file name → *Dataset

// fimiDataset reads one FIMI file of shared/fimi, once per test binary.
func fimiDataset(t testing.TB, name string) *Dataset {
	t.Helper()
	if ds, ok := fimiCache.Load(name); ok {
		return ds.(*Dataset)
	}
	f, err := os.Open(fimiPath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := ReadFIMI(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fimiCache.Store(name, ds)
	return ds
}

// fimiCounts are the numbers of closed and maximal itemsets of the FIMI
// benchmark files, as an independent implementation counts them: ELKI 0.7.1's
// Eclat (Debian package elki) listing every frequent itemset, condensed to the
// closed and maximal ones by definition; docs/bench/fim.md has the commands.
// The expensive points run only when FIM_FULL=1.
var fimiCounts = []struct {
	file            string
	minsup          int
	closed, maximal int64
	expensive       bool
}{
	{"chess.dat", 2000, 68967, 2419, false},
	{"mushroom.dat", 1000, 3427, 467, false},
	{"mushroom.dat", 500, 9864, 1234, false},
	{"mushroom.dat", 300, 18183, 2138, false},
	{"retail.dat", 50, 16676, 7112, false},
	{"chess.dat", 1800, 161626, 5393, true},
	{"T10I4D100K.dat", 50, 46993, 12062, true},
	{"chess.dat", 1500, 549872, 16303, true},
	{"retail.dat", 10, 159396, 62996, true},
	{"T10I4D100K.dat", 10, 283397, 127264, true},
}

func TestMineFIMICounts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not mining the FIMI files")
	}
	full := os.Getenv("FIM_FULL") == "1"
	for _, c := range fimiCounts {
		if c.expensive && !full {
			t.Logf("%s at %d: skipped, set FIM_FULL=1 to run it", c.file, c.minsup)
			continue
		}
		ds := fimiDataset(t, c.file)
		for _, maximal := range []bool{false, true} {
			want := c.closed
			if maximal {
				want = c.maximal
			}
			res, err := Mine(context.Background(), ds, Options{MinSupport: c.minsup, Maximal: maximal}, discard)
			if err != nil || !res.Complete || res.Itemsets != want {
				t.Errorf("%s at %d, maximal %v: %d itemsets (%+v, %v), want %d", c.file, c.minsup, maximal, res.Itemsets, res, err, want)
			}
		}
	}
}
