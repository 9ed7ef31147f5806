package eval

import (
	"fmt"
	"slices"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/vocab"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
)

// Truth is the ground truth at one threshold: the true clustering of the documents and
// the true pairs, sorted by quality.SortPairs.
type Truth struct {
	Clusters *quality.Clustering
	Pairs    []quality.Pair
}

// TruthFunc returns the ground truth for a threshold. Generated corpora have one truth
// for every threshold; natural corpora have the exact oracle's pairs above it.
type TruthFunc func(threshold float64) (Truth, error)

// Options configures Run. Zero fields mean defaults.
type Options struct {
	Methods    []string  // lsh method names; nil → minhash
	Thresholds []float64 // nil → 0.8
	Algorithm  string    // cluster.ByName name; "" → components
	// Config is the base sketch configuration; Method and Params.Threshold are set per
	// run, and EnsureDefaults is applied after.
	Config lsh.Config
}

// Row is the result of one (method, threshold) run.
type Row struct {
	Method    string
	Version   string
	Threshold float64
	Compared  int64 // candidate comparisons
	// Pairs compares the verified pairs (Ours: the edges of the similarity
	// graph) with the true pairs; its Precision, Recall and F1 are the pair
	// metrics.
	Pairs   quality.PairCounts
	Scores  quality.Scores // found clusters against the true clusters
	Elapsed time.Duration  // sketch, lookup and verify (not clustering, not scoring)
	// SketchBytes and Keys total the encoded sketches and the distinct index
	// keys of all documents: what state stores per document, but for
	// Badger's overhead.
	SketchBytes, Keys int64
	// Contain scores the stream's contained verdict (see ContainScores).
	Contain ContainScores
}

// ContainScores measures the contained verdict against the exact containment of the
// later document of a pair in the earlier one, C, with c the configured
// sketch.containment: the stream calls a page contained in an earlier candidate that the
// method does not call near when the estimated containment reaches c. An estimate near c
// may go either way, so recall is of the pairs at C ≥ c + 0.05 and precision of the
// verdicts at C ≥ c − 0.05 (at c = 0.85: recall at 0.9, precision at 0.8).
type ContainScores struct {
	Containment float64 // c
	Truth       int     // pairs (earlier, later) with C ≥ c + 0.05
	Found       int     // of those, reported near or contained: the later page joins the earlier
	Reported    int     // pairs reported contained (not near)
	Good        int     // of those, with C ≥ c − 0.05
}

// Recall returns Found/Truth, 0 when there is no true pair.
func (c ContainScores) Recall() float64 { return ratio(c.Found, c.Truth) }

// Precision returns Good/Reported, 1 when nothing was reported contained.
func (c ContainScores) Precision() float64 {
	if c.Reported == 0 {
		return 1
	}
	return ratio(c.Good, c.Reported)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Run evaluates every method at every threshold over docs, in order.
func Run(docs []Doc, truth TruthFunc, o Options) ([]Row, error) {
	if len(o.Methods) == 0 {
		o.Methods = []string{lsh.MethodMinHash}
	}
	if len(o.Thresholds) == 0 {
		o.Thresholds = []float64{0.8}
	}
	if o.Algorithm == "" {
		o.Algorithm = "components"
	}
	alg, err := cluster.ByName(o.Algorithm)
	if err != nil {
		return nil, err
	}
	vocab := vocabulary(docs)
	ct, err := newContainTruth(docs, o.Config)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, t := range o.Thresholds {
		tr, err := truth(t)
		if err != nil {
			return nil, err
		}
		for _, name := range o.Methods {
			row, err := runOne(docs, tr, ct, o.Config, name, t, alg, vocab)
			if err != nil {
				return nil, fmt.Errorf("eval %s at %.2f: %w", name, t, err)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func vocabulary(docs []Doc) *vocab.Vocabulary {
	var b vocab.Builder
	for _, d := range docs {
		b.Add(d.Text)
	}
	return b.Vocabulary()
}

func runOne(docs []Doc, tr Truth, ct *containTruth, base lsh.Config, name string, t float64, alg cluster.Algorithm, vocab *vocab.Vocabulary) (Row, error) {
	c := base
	c.Method, c.Params.Threshold = name, t
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, vocab)
	if err != nil {
		return Row{}, err
	}
	start := time.Now()
	edges, st, err := verify(m, docs, c.ContainmentThreshold())
	if err != nil {
		return Row{}, err
	}
	row := Row{Method: name, Version: m.Version(), Threshold: t, Compared: st.compared,
		Elapsed: time.Since(start), SketchBytes: st.sketchBytes, Keys: st.keys}
	if err := row.score(docs, edges, tr, alg); err != nil {
		return Row{}, err
	}
	row.Contain = ct.score(edges, st.contained)
	return row, nil
}

// score fills the pair and cluster metrics of a run.
func (r *Row) score(docs []Doc, edges []cluster.Edge, tr Truth, alg cluster.Algorithm) error {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	ours := make([]quality.Pair, len(edges))
	for i, e := range edges {
		ours[i] = quality.MakePair(ids[e.U], ids[e.V])
	}
	pc, err := quality.ComparePairs(quality.SortPairs(ours), tr.Pairs, nil, nil)
	if err != nil {
		return err
	}
	r.Pairs = pc
	g, err := cluster.NewGraph(len(docs), edges)
	if err != nil {
		return err
	}
	found, err := quality.FromLabels(ids, alg(g).Labels)
	if err != nil {
		return err
	}
	r.Scores = quality.Compare(tr.Clusters, found)
	return nil
}

// Verify runs m over docs as the stream's lookup does, without its caps: each document
// is sketched, looks its keys up among the earlier documents, and every distinct
// candidate whose Compare says Near becomes an edge (earlier, later) weighted by the
// estimated resemblance. It returns the edges and the number of comparisons.
func Verify(m lsh.Method, docs []Doc) ([]cluster.Edge, int64, error) {
	edges, st, err := verify(m, docs, 0)
	return edges, st.compared, err
}

// verifyStats counts a Verify run's work and sizes, and holds the pairs it
// found contained.
type verifyStats struct {
	compared          int64
	sketchBytes, keys int64
	contained         [][2]int32 // (earlier, later), not near
}

// verify is Verify that also collects, when containment > 0, the candidates not near
// whose estimated containment of the later document reaches it.
func verify(m lsh.Method, docs []Doc, containment float64) ([]cluster.Edge, verifyStats, error) {
	index := make(map[uint64][]int32)
	sketches := make([][]byte, len(docs))
	seen := make([]int32, len(docs)) // seen[j] == i+1: j already compared with i
	var sc lsh.Scratch
	var keys, lookup []uint64
	var edges []cluster.Edge
	var st verifyStats
	for i, d := range docs {
		sketches[i], keys = m.Sketch(&sc, d.Text, nil, keys[:0])
		lookup = append(lookup[:0], lsh.LookupKeys(m, keys)...) // as the stream's Decider looks up
		slices.Sort(keys)
		keys = slices.Compact(keys)
		slices.Sort(lookup)
		lookup = slices.Compact(lookup)
		st.sketchBytes += int64(len(sketches[i]))
		st.keys += int64(len(keys))
		for _, k := range lookup {
			for _, j := range index[k] {
				if seen[j] == int32(i+1) {
					continue
				}
				seen[j] = int32(i + 1)
				st.compared++
				est, err := m.Compare(sketches[j], sketches[i])
				if err != nil {
					return nil, st, err
				}
				switch {
				case est.Near:
					edges = append(edges, cluster.Edge{U: j, V: int32(i), W: float32(est.Resemblance)})
				case containment > 0 && est.Containment && est.BinA >= containment:
					st.contained = append(st.contained, [2]int32{j, int32(i)})
				}
			}
		}
		for _, k := range keys {
			index[k] = append(index[k], int32(i))
		}
	}
	return edges, st, nil
}
