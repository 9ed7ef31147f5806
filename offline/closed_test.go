package offline_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/state"
)

// fullMethod is the full method: its sketch is the fingerprint set itself, so
// a test can write any context into a state.
func fullMethod(t *testing.T) lsh.Method {
	t.Helper()
	c := lsh.Config{Method: lsh.MethodFull}
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// storeSets stores one document per fingerprint set, in order, as a state of
// the full method.
func storeSets(t *testing.T, ids []string, sets [][]uint64) *state.Store {
	t.Helper()
	m := fullMethod(t)
	st, err := state.Open(state.Options{Dir: t.TempDir(), SketchVersion: m.Version(), SetKeys: true, GCInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	docs := make([]state.Doc, len(sets))
	for i, set := range sets {
		set = lsh.SortedSet(slices.Clone(set))
		var sketch []byte
		for _, v := range set {
			sketch = binary.LittleEndian.AppendUint64(sketch, v)
		}
		docs[i] = state.Doc{Seq: st.Reserve(), ID: ids[i], ContentHash: uint64(i + 1), Verdict: 1, Sketch: sketch, Bands: set}
	}
	if err := st.Put(docs); err != nil {
		t.Fatal(err)
	}
	return st
}

// formatClosed writes the sets as "id id (common)" lines and the flat
// clustering as "flat: id id | id".
func formatClosed(res *offline.ClosedResult) string {
	var b strings.Builder
	for _, s := range res.Sets {
		for k, u := range s.Members {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(res.IDs[u])
		}
		fmt.Fprintf(&b, " (%d)\n", s.Common)
	}
	var parts []string
	for _, members := range res.Clustering.Clusters() {
		var ids []string
		for _, u := range members {
			ids = append(ids, res.IDs[u])
		}
		parts = append(parts, strings.Join(ids, " "))
	}
	b.WriteString("flat: " + strings.Join(parts, " | ") + "\n")
	return b.String()
}

// TestClosedGolden mines the hand-made context of testdata/closed at several
// thresholds, closed and maximal, and compares with the sets worked by hand.
func TestClosedGolden(t *testing.T) {
	ids, sets := readContext(t, "testdata/closed/context.txt")
	st := storeSets(t, ids, sets)
	want := readSections(t, "testdata/closed/want.txt")
	if len(want) == 0 {
		t.Fatal("no cases in want.txt")
	}
	for _, head := range slices.Sorted(mapKeys(want)) {
		var mc int
		var kind string
		if _, err := fmt.Sscanf(head, "min-common %d %s", &mc, &kind); err != nil {
			t.Fatalf("section %q: %v", head, err)
		}
		for _, mem := range []int64{0, 64} { // 64 bytes: a pass per pair or two
			res, err := offline.ClosedClusters(context.Background(), st, fullMethod(t),
				offline.ClosedOptions{MinCommon: mc, Maximal: kind == "maximal", SortMemory: mem})
			if err != nil {
				t.Fatal(err)
			}
			if got := formatClosed(res); got != want[head] || !res.Mining.Complete {
				t.Errorf("%s, max memory %d (%d passes):\n%s\nwant\n%s", head, mem, res.Context.Passes, got, want[head])
			}
		}
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func readContext(t *testing.T, path string) (ids []string, sets [][]uint64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		var set []uint64
		for _, s := range fields[1:] {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, v)
		}
		ids, sets = append(ids, fields[0]), append(sets, set)
	}
	return ids, sets
}

// readSections reads "== head" sections into head → body.
func readSections(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string)
	head := ""
	for _, line := range strings.SplitAfter(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "#") || line == "":
		case strings.HasPrefix(line, "== "):
			head = strings.TrimSpace(line[3:])
			out[head] = ""
		default:
			out[head] += line
		}
	}
	return out
}

// TestClosedMatchesBruteForce: on small random states (fingerprints from a
// small universe, so that documents share many), the closed and maximal sets
// are exactly those found by trying every subset of documents, and the flat
// clustering only joins documents with at least MinCommon common fingerprints.
func TestClosedMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	for round := range 25 {
		n := 2 + r.IntN(9)
		ids, sets := randomStateSets(r, n)
		st := storeSets(t, ids, sets)
		for _, mc := range []int{1, 2, 3, 5} {
			for _, maximal := range []bool{false, true} {
				res, err := offline.ClosedClusters(context.Background(), st, fullMethod(t),
					offline.ClosedOptions{MinCommon: mc, Maximal: maximal, SortMemory: int64(64 * (1 + r.IntN(8)))})
				if err != nil {
					t.Fatal(err)
				}
				got := formatClosed(res)
				got = got[:strings.LastIndex(got[:len(got)-1], "\n")+1] // without the flat line
				if want := bruteClosed(ids, sets, mc, maximal); got != want {
					t.Fatalf("round %d, min common %d, maximal %v, sets %v:\ngot\n%s\nwant\n%s", round, mc, maximal, sets, got, want)
				}
				checkFlat(t, res, sets, mc)
			}
		}
	}
}

// randomStateSets draws n documents: a few templates over 24 fingerprints,
// each document a template with some of its values swapped.
func randomStateSets(r *rand.Rand, n int) ([]string, [][]uint64) {
	templates := make([][]uint64, 1+r.IntN(3))
	for k := range templates {
		for v := range uint64(24) {
			if r.IntN(3) == 0 {
				templates[k] = append(templates[k], v)
			}
		}
	}
	ids := make([]string, n)
	sets := make([][]uint64, n)
	for i := range n {
		ids[i] = "d" + strconv.Itoa(i)
		for _, v := range templates[r.IntN(len(templates))] {
			if r.IntN(5) > 0 {
				sets[i] = append(sets[i], v)
			}
		}
		sets[i] = append(sets[i], 100+uint64(r.IntN(30)))
	}
	return ids, sets
}

// bruteClosed lists, in member order, every set of two or more documents with
// at least mc common fingerprints that no other document holds all of
// (closed), or with no frequent proper superset (maximal).
func bruteClosed(ids []string, sets [][]uint64, mc int, maximal bool) string {
	n := len(sets)
	common := make([]int, 1<<n)
	inter := make([]map[uint64]bool, 1<<n)
	for mask := 1; mask < 1<<n; mask++ {
		low := bits.TrailingZeros(uint(mask))
		if rest := mask &^ (1 << low); rest == 0 {
			inter[mask] = make(map[uint64]bool)
			for _, v := range sets[low] {
				inter[mask][v] = true
			}
		} else {
			inter[mask] = make(map[uint64]bool)
			for _, v := range sets[low] {
				if inter[rest][v] {
					inter[mask][v] = true
				}
			}
		}
		common[mask] = len(inter[mask])
	}
	var members [][]int32
	var supports []int
	for mask := 1; mask < 1<<n; mask++ {
		if bits.OnesCount(uint(mask)) < 2 || common[mask] < mc {
			continue
		}
		keep := true
		for e := range n {
			sup := mask | 1<<e
			if sup != mask && (maximal && common[sup] >= mc || !maximal && common[sup] == common[mask]) {
				keep = false
			}
		}
		if keep {
			var ms []int32
			for e := range n {
				if mask&(1<<e) != 0 {
					ms = append(ms, int32(e))
				}
			}
			members, supports = append(members, ms), append(supports, common[mask])
		}
	}
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return slices.Compare(members[a], members[b]) })
	var b strings.Builder
	for _, i := range order {
		for k, u := range members[i] {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(ids[u])
		}
		fmt.Fprintf(&b, " (%d)\n", supports[i])
	}
	return b.String()
}

// checkFlat: every two documents of one flat cluster share at least mc
// fingerprints, and every document is in exactly one cluster.
func checkFlat(t *testing.T, res *offline.ClosedResult, sets [][]uint64, mc int) {
	t.Helper()
	if len(res.Clustering.Labels) != len(sets) {
		t.Fatalf("%d labels for %d documents", len(res.Clustering.Labels), len(sets))
	}
	for _, members := range res.Clustering.Clusters() {
		for i, u := range members {
			for _, v := range members[i+1:] {
				a, b := lsh.SortedSet(slices.Clone(sets[u])), lsh.SortedSet(slices.Clone(sets[v]))
				if c := lsh.OverlapOf(a, b).Inter; c < mc {
					t.Fatalf("documents %d and %d share %d fingerprints, in one cluster at min common %d", u, v, c, mc)
				}
			}
		}
	}
}

// TestClosedMaxSets: mining stops at MaxSets and says so; the sets found are
// kept and the flat clustering is built from them.
func TestClosedMaxSets(t *testing.T) {
	ids, sets := readContext(t, "testdata/closed/context.txt")
	st := storeSets(t, ids, sets)
	res, err := offline.ClosedClusters(context.Background(), st, fullMethod(t), offline.ClosedOptions{MinCommon: 1, MaxSets: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sets) != 2 || res.Mining.Complete || res.Mining.Stopped != offline.StoppedMaxSets || res.ComponentsMined >= res.Components {
		t.Errorf("%d sets, mining %+v, %d of %d components mined", len(res.Sets), res.Mining, res.ComponentsMined, res.Components)
	}
	if _, err := offline.ClosedClusters(context.Background(), st, fullMethod(t), offline.ClosedOptions{}); err == nil {
		t.Error("min common 0 accepted")
	}
}

// TestClosedTimeout: Timeout ends the run as a context deadline does,
// with an error or with mining stopped for it.
func TestClosedTimeout(t *testing.T) {
	ids, sets := readContext(t, "testdata/closed/context.txt")
	st := storeSets(t, ids, sets)
	res, err := offline.ClosedClusters(context.Background(), st, fullMethod(t), offline.ClosedOptions{MinCommon: 1, Timeout: time.Nanosecond})
	if !errors.Is(err, context.DeadlineExceeded) && (err != nil || res.Mining.Stopped != context.DeadlineExceeded.Error()) {
		t.Errorf("timeout of 1ns: %v, %+v", err, res)
	}
}
