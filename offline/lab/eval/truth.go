package eval

import (
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/offline/lab/oracle"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
)

// Labelled returns the truth of a labelled corpus, the same at every threshold: the
// clusters of c and every pair of documents in one of them.
func Labelled(c *quality.Clustering) TruthFunc {
	tr := Truth{Clusters: c, Pairs: c.Pairs()}
	return func(float64) (Truth, error) { return tr, nil }
}

// Natural returns the truth of an unlabelled corpus from the exact oracle: at threshold
// t the true pairs are those whose exact resemblance is at least t, and the true
// clusters their connected components. The oracle runs once, at the lowest threshold
// asked for (lowest), with its default document-frequency cap.
func Natural(docs []Doc, lowest float64) (TruthFunc, error) {
	pairs, _, err := oracle.Pairs(Sets(docs), oracle.Options{Threshold: lowest})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	return func(t float64) (Truth, error) {
		var edges []cluster.Edge
		var ps []quality.Pair
		for _, p := range pairs {
			if p.Resemblance() >= t {
				edges = append(edges, cluster.Edge{U: int32(p.A), V: int32(p.B), W: float32(p.Resemblance())})
				ps = append(ps, quality.MakePair(ids[p.A], ids[p.B]))
			}
		}
		g, err := cluster.NewGraph(len(docs), edges)
		if err != nil {
			return Truth{}, err
		}
		c, err := quality.FromLabels(ids, cluster.Components(g).Labels)
		if err != nil {
			return Truth{}, err
		}
		return Truth{Clusters: c, Pairs: quality.SortPairs(ps)}, nil
	}, nil
}
