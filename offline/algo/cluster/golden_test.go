package cluster

import (
	"slices"
	"testing"
)

// Every expected clustering here was worked out by hand from the algorithm's definition.

func TestComponents(t *testing.T) {
	// 0-1-2 a path, 3-4 a pair, 5 isolated.
	g := mustGraph(t, 6, e(0, 1, 1), e(2, 1, 0.5), e(3, 4, 0.7))
	checkClusters(t, Components(g), [][]int32{{0, 1, 2}, {3, 4}, {5}}, nil)
}

func TestCenterAndMergeCenter(t *testing.T) {
	// Scan by decreasing weight:
	//   0-1 .9  both unseen: 0 (earlier) centre, 1 joins 0
	//   2-3 .8  both unseen: 2 centre, 3 joins 2
	//   1-2 .7  member 1 – centre 2: Center skips; Merge-Center merges {0,1} and {2,3}
	//   3-4 .6  member 3 – unseen 4: both skip
	//   1-4 .5  member 1 – unseen 4: both skip; 4 ends a singleton centre
	g := mustGraph(t, 5, e(0, 1, .9), e(2, 3, .8), e(1, 2, .7), e(3, 4, .6), e(1, 4, .5))
	checkClusters(t, Center(g), [][]int32{{0, 1}, {2, 3}, {4}}, []int32{0, 2, 4})
	checkClusters(t, MergeCenter(g), [][]int32{{0, 1, 2, 3}, {4}}, []int32{0, 2, 4})
}

func TestCenterTies(t *testing.T) {
	// Equal weights scan in (earlier, later) order: 0-1 first makes 0 a centre and 1 a
	// member, so 1-2 (member – unseen) is skipped. Scanning 1-2 first would have made 1 a
	// centre and pulled in both 0 and 2.
	g := mustGraph(t, 3, e(1, 2, .5), e(0, 1, .5))
	checkClusters(t, Center(g), [][]int32{{0, 1}, {2}}, []int32{0, 2})
	checkClusters(t, MergeCenter(g), [][]int32{{0, 1}, {2}}, []int32{0, 2})
}

func TestMergeCenterCentreToCentre(t *testing.T) {
	// 0-1 .9: 0 centre, 1 member. 2-3 .8: 2 centre, 3 member. 0-2 .7 joins two centres:
	// Center never moves a centre; Merge-Center merges (a record of one cluster, the
	// centre 0, is similar to the other's centre).
	g := mustGraph(t, 4, e(0, 1, .9), e(2, 3, .8), e(0, 2, .7))
	checkClusters(t, Center(g), [][]int32{{0, 1}, {2, 3}}, []int32{0, 2})
	checkClusters(t, MergeCenter(g), [][]int32{{0, 1, 2, 3}}, []int32{0, 2})
}

func TestStar(t *testing.T) {
	// Degrees: 4:4, 0:3, 2,3,5:2, 1,6,7:1. Scan 4,0,2,3,5,1,6,7: 4 is a centre and marks
	// 3,5,6,7; 0 is unmarked, a centre, marks 1,2,3; the rest are marked.
	// Satellite 3 touches centres 0 (.7) and 4 (.6) and joins 0, the heavier edge.
	edges := []Edge{e(0, 1, .9), e(0, 2, .8), e(0, 3, .7), e(3, 4, .6), e(4, 5, .9),
		e(4, 6, .8), e(4, 7, .5), e(2, 5, .3)}
	g := mustGraph(t, 9, edges...) // 8 is isolated: a star of its own
	checkClusters(t, Star(g), [][]int32{{0, 1, 2, 3}, {4, 5, 6, 7}, {8}}, []int32{0, 4, 8})

	// With 3-4 at .7 satellite 3 is tied between 0 (degree 3) and 4 (degree 4): it joins
	// the centre of higher degree.
	edges[3].W = .7
	g = mustGraph(t, 8, edges...)
	checkClusters(t, Star(g), [][]int32{{0, 1, 2}, {3, 4, 5, 6, 7}}, []int32{0, 4})
}

func TestStarDegreeTies(t *testing.T) {
	// Path 0-1-2-3, degrees 1,2,2,1: 1 (earlier of the degree-2 nodes) is a centre and
	// marks 0,2; 3 is unmarked and a centre. Satellite 2 touches centres 1 and 3 at equal
	// weight and joins 1, of higher degree.
	g := mustGraph(t, 4, e(0, 1, 1), e(1, 2, 1), e(2, 3, 1))
	checkClusters(t, Star(g), [][]int32{{0, 1, 2}, {3}}, []int32{1, 3})
	checkClusters(t, OnlineStarClustering(g), [][]int32{{0, 1, 2}, {3}}, []int32{1, 3})
}

func TestOnlineStarDiffersFromStar(t *testing.T) {
	// Edges 0-1, 1-2, 1-3, 0-4, 0-5 (all .9), so 0 and 1 both end with degree 3.
	// Offline: 0 (earlier of the degree-3 nodes) is a centre and marks 1,4,5; 2 and 3 are
	// then centres. Satellite 1 touches centres 0 (degree 3), 2 and 3 (degree 1) at
	// equal weight and joins 0.
	// Online, inserting 0..5:
	//   0: no centre near it: promoted.            centres {0}
	//   1: deg 1 = centre 0's deg 1: stays.        centres {0}
	//   2: 1 now deg 2 > centre 0's 1: 1 promoted, 0 demoted; 2 dominated by 1.
	//   3: 1 deg 3; 3 dominated by 1.              centres {1}
	//   4: 0 deg 2 < centre 1's 3: stays; 4 has no centre near it: promoted. {1,4}
	//   5: 0 deg 3 = centre 1's 3: stays (not strictly higher); 5 promoted. {1,4,5}
	// Satellite 0 touches 1 (degree 3), 4 and 5 (degree 1) at equal weight: joins 1.
	g := mustGraph(t, 6, e(0, 1, .9), e(1, 2, .9), e(1, 3, .9), e(0, 4, .9), e(0, 5, .9))
	checkClusters(t, Star(g), [][]int32{{0, 1, 4, 5}, {2}, {3}}, []int32{0, 2, 3})
	checkClusters(t, OnlineStarClustering(g), [][]int32{{0, 1, 2, 3}, {4}, {5}}, []int32{1, 4, 5})

	s := NewOnlineStar(g)
	wantCentres := [][]int32{{0}, {0}, {1}, {1}, {1, 4}, {1, 4, 5}}
	for step, want := range wantCentres {
		if !s.Step() {
			t.Fatalf("step %d: Step returned false", step)
		}
		if got := s.Clustering().Centres; !slices.Equal(got, want) {
			t.Errorf("after inserting %d: centres %v, want %v", step, got, want)
		}
	}
	if s.Step() {
		t.Error("Step after the last node returned true")
	}
}

func TestRicochetSR(t *testing.T) {
	// Edges 0-1 .9, 1-2 .8, 2-3 .9, 0-2 .4, 3-4 .3, 1-3 .5.
	// Mean weights: 1 .733, 2 .7, 0 .65, 3 .567, 4 .3 — the seed order.
	//   seed 1: 0 (.9), 2 (.8), 3 (.5) join it.                    1:{0,1,2,3}
	//   seed 2: leaves 1; 3 moves (.9 > .5); 0 stays (.4 < .9).     1:{0,1} 2:{2,3}
	//   seed 0: leaves 1, attracts nobody (1,2 are seeds): withdrawn, back to 1.
	//   seed 3: leaves 2; 4 joins (.3 > 0). 2 is left alone: dissolved, joins its most
	//           similar seed, 3 (.9 > 1's .8).                     1:{0,1} 3:{2,3,4}
	//   seed 4: attracts nobody: withdrawn, back to 3.
	g := mustGraph(t, 5, e(0, 1, .9), e(1, 2, .8), e(2, 3, .9), e(0, 2, .4), e(3, 4, .3), e(1, 3, .5))
	checkClusters(t, RicochetSR(g), [][]int32{{0, 1}, {2, 3, 4}}, []int32{1, 3})

	// BSR on the same graph: seed 1 as above. 4 is now the only node adjacent to no seed,
	// so it is next; it attracts nobody (3 is at .5 from seed 1, 3-4 is .3) and is
	// withdrawn. Weight over similarity to seeds is then 3: .567/.5, 2: .7/.8, 0: .65/.9,
	// so seed 3 takes 2 (.9 > .8) and 4; seeds 0 and 2 follow and attract nobody.
	checkClusters(t, RicochetBSR(g), [][]int32{{0, 1}, {2, 3, 4}}, []int32{1, 3})
}

func TestRicochetSeedOrder(t *testing.T) {
	// Path 0-1 .9, 1-2 .8, 2-3 .7; mean weights .9, .85, .75, .7.
	// SR: seed 0 takes 1. Seed 1 leaves 0 and takes 2; 0 is alone, dissolved into 1.
	//     Seed 2 leaves 1 and takes 3 ({0,1} keeps seed 1). Seed 3 attracts nobody.
	// BSR: seed 0 takes 1; 2 and 3 touch no seed, 2 is heavier: seed 2 takes 3 (1 stays,
	//     .8 < .9). Then 3 (.7/.7) before 1 (.85/1.7); both attract nobody.
	g := mustGraph(t, 4, e(0, 1, .9), e(1, 2, .8), e(2, 3, .7))
	checkClusters(t, RicochetSR(g), [][]int32{{0, 1}, {2, 3}}, []int32{1, 2})
	checkClusters(t, RicochetBSR(g), [][]int32{{0, 1}, {2, 3}}, []int32{0, 2})
}

func TestBiconnected(t *testing.T) {
	f := func(name string, n int, edges []Edge, want [][]int32) {
		t.Helper()
		t.Run(name, func(t *testing.T) {
			checkClusters(t, Biconnected(mustGraph(t, n, edges...)), want, nil)
		})
	}
	// Blocks {0,1,2}, {2,3,4}, bridges {4,5} and {7,8}; 6 isolated. Articulation point 2
	// has 1.8 in the first triangle and 1.0 in the second; 4 has 1.4 in the second
	// triangle and .8 on the bridge, so 5 is left alone.
	f("triangles and bridges", 9, []Edge{e(0, 1, .9), e(1, 2, .9), e(0, 2, .9),
		e(2, 3, .5), e(3, 4, .9), e(2, 4, .5), e(4, 5, .8), e(7, 8, .6)},
		[][]int32{{0, 1, 2}, {3, 4}, {5}, {6}, {7, 8}})
	// Bridge 4-5 (listed twice, the heavier copy kept) weighs 1.0, as much as 4's two
	// edges in the triangle {2,3,4}: the larger block, the triangle, wins.
	f("tie to larger block", 6, []Edge{e(0, 1, .9), e(1, 2, .9), e(0, 2, .9),
		e(2, 3, .5), e(3, 4, .5), e(2, 4, .5), e(4, 5, .8), e(5, 4, 1)},
		[][]int32{{0, 1, 2}, {3, 4}, {5}})
	// Bowtie: 0 weighs 1.0 in both triangles of 3; the block whose smallest other node is
	// earlier ({0,1,2}: 1 < 3) wins.
	f("bowtie", 5, []Edge{e(0, 1, .5), e(0, 2, .5), e(1, 2, .5), e(0, 3, .5), e(0, 4, .5), e(3, 4, .5)},
		[][]int32{{0, 1, 2}, {3, 4}})
	// A light 4-cycle 0-1-2-3 whose opposite corners 0 and 2 sit in heavy triangles: 1 and
	// 3 stay one cluster without an edge between them.
	f("hollow cycle", 8, []Edge{e(0, 1, .1), e(1, 2, .1), e(2, 3, .1), e(3, 0, .1),
		e(0, 4, .9), e(0, 5, .9), e(4, 5, .9), e(2, 6, .9), e(2, 7, .9), e(6, 7, .9)},
		[][]int32{{0, 4, 5}, {1, 3}, {2, 6, 7}})
	// A path is all bridges; each inner node ties between two pairs and takes the one with
	// the earlier other node, i.e. the bridge to its predecessor, which its predecessor
	// has already left (except node 1, whose predecessor 0 has no other block).
	f("path", 5, []Edge{e(0, 1, 1), e(1, 2, 1), e(2, 3, 1), e(3, 4, 1)},
		[][]int32{{0, 1}, {2}, {3}, {4}})
}

func TestBiconnectedLongPath(t *testing.T) {
	// A recursive search would need a stack frame per node.
	const n = 1 << 20
	edges := make([]Edge, n-1)
	for i := range edges {
		edges[i] = e(int32(i), int32(i+1), 1)
	}
	c := Biconnected(mustGraph(t, n, edges...))
	if c.K != n-1 {
		t.Errorf("K = %d, want %d", c.K, n-1)
	}
}

func TestByName(t *testing.T) {
	for _, name := range append(Names(), "ricochet") {
		if _, err := ByName(name); err != nil {
			t.Errorf("ByName(%q): %v", name, err)
		}
	}
	if _, err := ByName("kmeans"); err == nil {
		t.Error(`ByName("kmeans") succeeded`)
	}
	if got := len(Names()); got != 8 {
		t.Errorf("%d names, want 8", got)
	}
}
