package oracle

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
)

var containFlag = flag.Int("contain", 0, "print the containment recall of bottomk, modm and minhash with sketch.contain on this many documents of each corpus (0: skip)")

// findContained runs m as the pipeline would, without its caps, and reports
// the pairs (earlier, later) whose estimated containment of the later
// document in the earlier one (Estimate.BinA of Compare(earlier, later))
// reaches c: the "contained" verdict.
func findContained(m lsh.Method, docs []doc, c float64) map[[2]int32]bool {
	out := map[[2]int32]bool{}
	index := map[uint64][]int32{}
	sks := make([][]byte, len(docs))
	seen := make([]int32, len(docs))
	var sc lsh.Scratch
	var keys []uint64
	for i, d := range docs {
		sks[i], keys = m.Sketch(&sc, d.text, nil, keys[:0])
		seen = seen[:0]
		for _, k := range keys {
			for _, j := range index[k] {
				if !contains32(seen, j) {
					seen = append(seen, j)
				}
			}
		}
		for _, j := range seen {
			if e, err := m.Compare(sks[j], sks[i]); err == nil && e.BinA >= c {
				out[[2]int32{j, int32(i)}] = true
			}
		}
		for _, k := range keys {
			index[k] = append(index[k], int32(i))
		}
	}
	return out
}

func contains32(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestContainmentRecall prints, for bottomk, modm and minhash with sketch.contain at containment
// threshold c, the recall of the oracle's pairs whose later document is at
// least c+0.05 contained in the earlier one, and the precision of the
// reported pairs. Run it with
//
//	go test ./offline/lab/oracle -run TestContainmentRecall -contain 5000 -v
func TestContainmentRecall(t *testing.T) {
	if *containFlag == 0 {
		t.Skip("run with -contain N")
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| corpus | method | c | pairs C≥c+0.05 | recall %% | reported | precision C≥c %% | C<c−0.1 %% |\n|---|---|---|---|---|---|---|---|\n")
	for _, name := range []string{"reuters21578.tar.gz", "20news-bydate.tar.gz"} {
		docs := loadCorpus(t, name, *containFlag)
		sets := Sets(texts(docs), words5)
		pairs, _, err := Pairs(sets, Options{Threshold: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		later := map[[2]int32]float64{} // exact containment of B (later) in A
		for _, p := range pairs {
			later[[2]int32{int32(p.A), int32(p.B)}] = p.BinA()
		}
		for _, c := range []float64{0.7, 0.85, 0.9} {
			for _, cfg := range []lsh.Config{
				{Method: lsh.MethodBottomK},
				{Method: lsh.MethodModM},
				{Method: lsh.MethodModM, ModM: lsh.ModMParams{M: 8}},
				{Method: lsh.MethodMinHash, Contain: true},
			} {
				m := newMethod(t, cfg, nil)
				found := findContained(m, docs, c)
				truth, hit, good, bad := 0, 0, 0, 0
				for p, x := range later {
					if x >= c+0.05 {
						truth++
						hit += b2i(found[p])
					}
				}
				for p := range found {
					x, ok := later[p]
					if !ok {
						x = lsh.OverlapOf(sets[p[0]], sets[p[1]]).BinA()
					}
					good += b2i(x >= c)
					bad += b2i(x < c-0.1)
				}
				fmt.Fprintf(&out, "| %s | %s | %.2f | %d | %s | %d | %s | %s |\n", strings.TrimSuffix(name, ".tar.gz"),
					m.Version(), c, truth, pct(hit, truth), len(found), pct(good, len(found)), pct(bad, len(found)))
			}
		}
	}
	t.Log("\n" + out.String())
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
