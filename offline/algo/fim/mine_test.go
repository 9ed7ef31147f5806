package fim

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// collect mines ds and returns every emitted itemset as "a b c (support)", sorted.
func collect(t testing.TB, ds *Dataset, o Options) []string {
	t.Helper()
	var got []string
	res, err := Mine(context.Background(), ds, o, func(items []int32, support int) error {
		if !slices.IsSorted(items) || len(items) == 0 {
			t.Errorf("emitted itemset %v is empty or not sorted", items)
		}
		got = append(got, format(items, support))
		return nil
	})
	if err != nil || !res.Complete || res.Itemsets != int64(len(got)) {
		t.Fatalf("Mine: %+v, %v after %d itemsets", res, err, len(got))
	}
	slices.Sort(got)
	return got
}

func format(items []int32, support int) string {
	return fmt.Sprintf("%s (%d)", appendItems(nil, items), support)
}

// bruteForce enumerates every non-empty itemset over items 0..n-1 (n ≤ 16) with
// its support and keeps the frequent closed ones (no proper superset has the same
// support) or the frequent maximal ones (no proper superset is frequent).
func bruteForce(tx [][]int32, n, minsup int, maximal bool) []string {
	masks := make([]uint32, len(tx))
	for k, t := range tx {
		for _, it := range t {
			masks[k] |= 1 << it
		}
	}
	supp := make([]int, 1<<n)
	for set := range supp {
		for _, m := range masks {
			if m&uint32(set) == uint32(set) {
				supp[set]++
			}
		}
	}
	var out []string
	for set := 1; set < len(supp); set++ {
		if supp[set] < minsup {
			continue
		}
		keep := true
		for it := range n {
			sup := set | 1<<it
			if sup == set {
				continue
			}
			if maximal && supp[sup] >= minsup || !maximal && supp[sup] == supp[set] {
				keep = false
				break
			}
		}
		if keep {
			items := make([]int32, 0, bits.OnesCount(uint(set)))
			for it := range n {
				if set&(1<<it) != 0 {
					items = append(items, int32(it))
				}
			}
			out = append(out, format(items, supp[set]))
		}
	}
	slices.Sort(out)
	return out
}

// randomContext draws nTx transactions over n items, each item present with
// probability density.
func randomContext(r *rand.Rand, n, nTx int, density float64) [][]int32 {
	tx := make([][]int32, nTx)
	for k := range tx {
		for it := range n {
			if r.Float64() < density {
				tx[k] = append(tx[k], int32(it))
			}
		}
	}
	return tx
}

// plantedContext draws nTx transactions over n items, each the union of one or
// two of a few random patterns with a little noise, so that transactions repeat
// and overlap as in real data.
func plantedContext(r *rand.Rand, n, nTx int) [][]int32 {
	patterns := randomContext(r, n, 2+r.IntN(5), 0.3)
	noise := randomContext(r, n, nTx, 0.03)
	tx := make([][]int32, nTx)
	for k := range tx {
		tx[k] = append(tx[k], patterns[r.IntN(len(patterns))]...)
		if r.IntN(2) == 0 {
			tx[k] = append(tx[k], patterns[r.IntN(len(patterns))]...)
		}
		tx[k] = append(tx[k], noise[k]...)
	}
	return tx
}

// TestMineMatchesBruteForce compares Mine with brute force, closed and maximal,
// on many small random contexts: sparse to dense (density -1: planted patterns),
// few to many transactions, supports from 1 up.
func TestMineMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	cases := 0
	for _, density := range []float64{0.1, 0.3, 0.5, 0.7, 0.9, -1} {
		for round := range 30 {
			n := 1 + r.IntN(12)
			nTx := r.IntN(41)
			tx := randomContext(r, n, nTx, density)
			if density < 0 {
				tx = plantedContext(r, n, nTx)
			}
			ds, err := NewDataset(tx)
			if err != nil {
				t.Fatal(err)
			}
			for _, minsup := range []int{1, 2, 3, 1 + nTx/4, 1 + nTx/2, nTx} {
				for _, maximal := range []bool{false, true} {
					want := bruteForce(tx, n, max(minsup, 1), maximal)
					got := collect(t, ds, Options{MinSupport: max(minsup, 1), Maximal: maximal})
					if !slices.Equal(got, want) {
						t.Fatalf("density %.1f round %d minsup %d maximal %v on\n%s\ngot  %q\nwant %q",
							density, round, minsup, maximal, dump(tx), got, want)
					}
					cases++
				}
			}
		}
	}
	t.Logf("%d cases", cases)
}

func dump(tx [][]int32) string {
	var b strings.Builder
	for _, t := range tx {
		b.Write(appendItems(nil, t))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestMineSmall checks hand-made cases, including the closure of the empty set,
// empty transactions and items that occur everywhere.
func TestMineSmall(t *testing.T) {
	f := func(in string, minsup int, maximal bool, want ...string) {
		t.Helper()
		ds, err := ReadFIMI(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, ds, Options{MinSupport: minsup, Maximal: maximal})
		if !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("%q at %d (maximal %v):\ngot  %q\nwant %q", in, minsup, maximal, got, want)
		}
	}
	f("", 1, false)
	f("\n\n", 1, false)
	f("7\n7\n", 3, false)
	f("7\n7\n", 2, false, "7 (2)")
	f("7\n7\n\n", 2, false, "7 (2)")
	f("1 2 3\n1 2\n1 3\n", 1, false, "1 (3)", "1 2 (2)", "1 2 3 (1)", "1 3 (2)")
	f("1 2 3\n1 2\n1 3\n", 1, true, "1 2 3 (1)")
	f("1 2 3\n1 2\n1 3\n", 2, true, "1 2 (2)", "1 3 (2)")
	f("5 9\n5 9\n5 9 100000000\n", 1, false, "5 9 (3)", "5 9 100000000 (1)")
	f("5 9\n5 9\n5 9 100000000\n", 2, true, "5 9 (3)")
	f("3 3 1\n1 3\n", 2, false, "1 3 (2)")
}

// TestMineLargerContexts checks contexts too big for brute force (up to 40
// items, 300 transactions): every closed itemset emitted is frequent, has the
// support a direct count gives, is emitted once and has no one-item extension
// with the same support; and the maximal itemsets are exactly the closed ones
// with no frequent one-item extension.
func TestMineLargerContexts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for round := range 12 {
		n, nTx := 20+r.IntN(21), 100+r.IntN(201)
		tx := randomContext(r, n, nTx, 0.15+0.05*float64(round%7))
		if round%2 == 1 {
			tx = plantedContext(r, n, nTx)
		}
		ds, err := NewDataset(tx)
		if err != nil {
			t.Fatal(err)
		}
		minsup := 3 + nTx/25 + r.IntN(nTx/12)
		sets := make([]uint64, len(tx))
		for k, t := range tx {
			for _, it := range t {
				sets[k] |= 1 << it
			}
		}
		support := func(set uint64) (s int) {
			for _, x := range sets {
				if x&set == set {
					s++
				}
			}
			return s
		}
		var wantMax []string
		seen := map[uint64]bool{}
		_, err = Mine(context.Background(), ds, Options{MinSupport: minsup}, func(items []int32, s int) error {
			var set uint64
			for _, it := range items {
				set |= 1 << it
			}
			if seen[set] {
				t.Errorf("round %d: %v emitted twice", round, items)
			}
			seen[set] = true
			if got := support(set); got != s || s < minsup {
				t.Errorf("round %d: %v has support %d, emitted with %d (minsup %d)", round, items, got, s, minsup)
			}
			maximal := true
			for it := range n {
				if bit := uint64(1) << it; set&bit == 0 {
					sup := support(set | bit)
					if sup == s {
						t.Errorf("round %d: %v is not closed: adding %d keeps support %d", round, items, it, s)
					}
					maximal = maximal && sup < minsup
				}
			}
			if maximal {
				wantMax = append(wantMax, format(items, s))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(wantMax)
		if got := collect(t, ds, Options{MinSupport: minsup, Maximal: true}); !slices.Equal(got, wantMax) {
			t.Errorf("round %d: maximal itemsets\ngot  %q\nwant %q", round, got, wantMax)
		}
		t.Logf("round %d: %d items, %d transactions, minsup %d: %d closed, %d maximal", round, n, nTx, minsup, len(seen), len(wantMax))
	}
}
