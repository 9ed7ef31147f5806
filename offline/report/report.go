package report

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/state"
)

// Report is a re-clustering at several thresholds.
type Report struct {
	Algorithm string    `json:"algorithm"`
	Sketch    string    `json:"sketch,omitempty"` // sketch version of the state
	Documents int       `json:"documents"`
	Created   time.Time `json:"created"`
	Levels    []Level   `json:"levels"` // by ascending threshold
	Top       int       `json:"top"`    // clusters listed per level in report.html
}

// Level is the clustering at one threshold.
type Level struct {
	Threshold float64 `json:"threshold"`
	Totals    Totals  `json:"totals"`
	Histogram []Bin   `json:"histogram"`
	// Clusters lists every cluster, singletons included, largest first (ties by
	// id).
	Clusters []Cluster `json:"clusters"`
}

// Totals sum up one level.
type Totals struct {
	Pairs      int `json:"pairs"`      // verified pairs (graph edges) at the threshold
	Clusters   int `json:"clusters"`   // singletons included
	Singletons int `json:"singletons"` // documents with no near-duplicate
	Duplicates int `json:"duplicates"` // documents after the first of their cluster
	Largest    int `json:"largest"`    // size of the largest cluster
}

// Bin counts the clusters whose size lies in [Min, Max].
type Bin struct {
	Min       int `json:"min"`
	Max       int `json:"max"`
	Clusters  int `json:"clusters"`
	Documents int `json:"documents"` // in those clusters
}

// Cluster is one cluster: its id is the sequence number of its earliest
// document, as the write-back of offline.Recluster stores it.
type Cluster struct {
	ID             uint64   `json:"id"`
	Size           int      `json:"size"`
	Representative Doc      `json:"representative"`
	Members        []string `json:"members"` // document ids in arrival order
}

// Doc is a cluster's representative: its earliest document.
type Doc struct {
	Seq  uint64     `json:"seq"`
	ID   string     `json:"id"`
	URL  string     `json:"url,omitempty"`
	Time *time.Time `json:"time,omitempty"` // ingest time, when stored
}

// Store looks up a stored document by sequence number; *state.Store has it.
type Store interface {
	Get(seq uint64) (state.Doc, bool, error)
}

var _ Store = (*state.Store)(nil)

// Options configure Build.
type Options struct {
	// Thresholds, ascending, each in (0, 1]; the first must be the threshold
	// res was re-clustered at.
	Thresholds []float64
	// Algorithm names the clustering (cluster.Names()).
	Algorithm string
	// Sketch is the sketch version, shown in the report.
	Sketch string
	// Top is the number of clusters report.html lists per level; default 10.
	Top int
	// Progress, if set, is called after each threshold with the number done.
	Progress func(levels int)
	// Now is the clock for Report.Created; default time.Now.
	Now func() time.Time
}

// Validate reports whether the options can be used.
func (o Options) Validate() error {
	if len(o.Thresholds) == 0 {
		return errors.New("report: no thresholds")
	}
	for i, t := range o.Thresholds {
		if !(t > 0 && t <= 1) || (i > 0 && t <= o.Thresholds[i-1]) {
			return fmt.Errorf("report: thresholds %v: want ascending values in (0, 1]", o.Thresholds)
		}
	}
	if o.Top < 0 {
		return errors.New("report: top must not be negative")
	}
	_, err := cluster.ByName(o.Algorithm)
	return err
}

// Build clusters res's graph at every threshold — the graph filtered to the
// edges that reach it, clustered again — and looks up each cluster's earliest
// document in st for its ingest time. res must have been re-clustered at
// o.Thresholds[0] with o.Algorithm; its clustering serves that level.
func Build(ctx context.Context, st Store, res *offline.Result, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Top == 0 {
		o.Top = 10
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	algo, _ := cluster.ByName(o.Algorithm)
	r := &Report{Algorithm: o.Algorithm, Sketch: o.Sketch, Documents: len(res.Seqs), Created: o.Now().UTC(), Top: o.Top}
	reps := make(map[uint64]Doc) // representatives, shared across levels
	g, c := res.Graph, res.Clustering
	for i, t := range o.Thresholds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i > 0 { // thresholds ascend: filter the previous level's graph
			g = g.AtLeast(t)
			c = algo(g)
		}
		l, err := newLevel(st, res, t, g, c, reps)
		if err != nil {
			return nil, err
		}
		r.Levels = append(r.Levels, l)
		if o.Progress != nil {
			o.Progress(i + 1)
		}
	}
	fillBins(r.Levels)
	return r, nil
}

// newLevel describes clustering c of graph g at threshold t.
func newLevel(st Store, res *offline.Result, t float64, g *cluster.Graph, c cluster.Clustering, reps map[uint64]Doc) (Level, error) {
	l := Level{Threshold: t, Totals: Totals{Pairs: g.M(), Clusters: c.K, Duplicates: len(c.Labels) - c.K}}
	for _, nodes := range c.Clusters() {
		first := nodes[0]
		rep, err := representative(st, res, first, reps)
		if err != nil {
			return Level{}, err
		}
		members := make([]string, len(nodes))
		for k, n := range nodes {
			members[k] = res.IDs[n]
		}
		l.Clusters = append(l.Clusters, Cluster{ID: res.Seqs[first], Size: len(nodes), Representative: rep, Members: members})
		l.Totals.Largest = max(l.Totals.Largest, len(nodes))
		if len(nodes) == 1 {
			l.Totals.Singletons++
		}
	}
	slices.SortFunc(l.Clusters, func(a, b Cluster) int {
		return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID))
	})
	return l, nil
}

// representative is the Doc of node, with its ingest time from st.
func representative(st Store, res *offline.Result, node int32, reps map[uint64]Doc) (Doc, error) {
	seq := res.Seqs[node]
	if d, ok := reps[seq]; ok {
		return d, nil
	}
	d := Doc{Seq: seq, ID: res.IDs[node], URL: res.URLs[node]}
	stored, ok, err := st.Get(seq)
	if err != nil {
		return Doc{}, fmt.Errorf("report: %w", err)
	}
	if ok && !stored.Time.IsZero() {
		tm := stored.Time.UTC()
		d.Time = &tm
	}
	reps[seq] = d
	return d, nil
}

// fillBins counts every level's clusters into the same bins: sizes 1, 2, 3–4,
// 5–8, … up to the largest cluster of any level.
func fillBins(levels []Level) {
	largest := 1
	for _, l := range levels {
		largest = max(largest, l.Totals.Largest)
	}
	bins := newBins(largest)
	for i := range levels {
		h := slices.Clone(bins)
		for _, c := range levels[i].Clusters {
			b := &h[binOf(c.Size)]
			b.Clusters++
			b.Documents += c.Size
		}
		levels[i].Histogram = h
	}
}

// newBins returns the empty bins of sizes 1, 2, 3–4, 5–8, … up to largest.
func newBins(largest int) []Bin {
	var bins []Bin
	for lo, hi := 1, 1; lo <= largest; lo, hi = hi+1, 2*hi {
		bins = append(bins, Bin{Min: lo, Max: hi})
	}
	return bins
}

// binOf is the bin of a cluster of size n ≥ 1: 0 for 1, 1 for 2, 2 for 3–4, …
func binOf(n int) int {
	b := 0
	for hi := 1; hi < n; hi *= 2 {
		b++
	}
	return b
}
