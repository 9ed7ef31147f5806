package eval

import (
	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/offline/lab/oracle"
)

// containMargin is the band around sketch.containment c in which a containment
// estimate may go either way: recall is of the pairs at C ≥ c + containMargin and
// precision of the verdicts at C ≥ c − containMargin. At c = 0.85 they are the pairs at
// 0.9 and the verdicts at 0.8.
const containMargin = 0.05

// containTruth holds the exact containment of later documents in earlier ones, the
// truth of the contained verdict, whatever the truth of resemblance is.
type containTruth struct {
	c     float64
	sets  [][]uint64        // word-5-shingle sets, as the oracle's
	truth map[[2]int32]bool // (earlier, later) whose later document is at least c + containMargin inside the earlier
}

// newContainTruth runs the exact oracle (default document-frequency cap) at base's
// sketch.containment + containMargin.
func newContainTruth(docs []Doc, base lsh.Config) (*containTruth, error) {
	base.EnsureDefaults()
	ct := &containTruth{c: base.ContainmentThreshold(), sets: Sets(docs), truth: map[[2]int32]bool{}}
	pairs, _, err := oracle.Pairs(ct.sets, oracle.Options{Threshold: ct.c + containMargin})
	if err != nil {
		return nil, err
	}
	for _, p := range pairs {
		if p.BinA() >= ct.c+containMargin { // A < B: B is the later document
			ct.truth[[2]int32{int32(p.A), int32(p.B)}] = true
		}
	}
	return ct, nil
}

// score scores a run's near edges and contained pairs (earlier, later).
func (ct *containTruth) score(edges []cluster.Edge, contained [][2]int32) ContainScores {
	s := ContainScores{Containment: ct.c, Truth: len(ct.truth), Reported: len(contained)}
	for _, e := range edges {
		if ct.truth[[2]int32{e.U, e.V}] {
			s.Found++
		}
	}
	for _, p := range contained {
		if ct.truth[p] {
			s.Found++
		}
		if lsh.OverlapOf(ct.sets[p[0]], ct.sets[p[1]]).BinA() >= ct.c-containMargin {
			s.Good++
		}
	}
	return s
}
