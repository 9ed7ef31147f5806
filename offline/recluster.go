package offline

import (
	"context"
	"fmt"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/state"
)

// Options configure a re-clustering pass.
type Options struct {
	// Algorithm names a clustering of the similarity graph (cluster.Names()).
	Algorithm string
	// Threshold is the estimated resemblance a candidate pair needs to be an
	// edge. Recluster builds its MinHash method with it; ReclusterMethod asks
	// for it on top of the method's own verdict (Estimate.Near), 0 for none.
	Threshold float64
	// WriteBack stores each document's new cluster id in state.
	WriteBack bool
	// Progress, if set, is called every 10,000 documents read (the scan and the
	// candidate verification are one pass).
	Progress func(docs int)
}

// Result is a re-clustering of the stored documents.
type Result struct {
	Seqs       []uint64 // node → document sequence number (arrival order), ascending
	IDs        []string // node → document id
	URLs       []string // node → document URL
	Graph      *cluster.Graph
	Clustering cluster.Clustering
	ClusterIDs []uint64 // cluster label → id: the sequence number of its earliest document
	Capped     int      // candidate lookups cut by state.max_bucket or state.max_candidates
	Missing    int      // documents that expired before write-back
	Elapsed    time.Duration
}

// Recluster is ReclusterMethod with the MinHash method of the sketcher's
// parameters, a pair being an edge when its estimated resemblance reaches
// o.Threshold.
func Recluster(ctx context.Context, st *state.Store, sk *lsh.Sketcher, o Options) (*Result, error) {
	c := lsh.Config{Method: lsh.MethodMinHash, Params: sk.Params()}
	if o.Threshold > 0 {
		c.Params.Threshold = o.Threshold
	}
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, nil)
	if err != nil {
		return nil, fmt.Errorf("recluster: %w", err)
	}
	return ReclusterMethod(ctx, st, m, o)
}

// ReclusterMethod reads every stored document, builds the graph of verified
// near-duplicate pairs — each document's candidates among earlier documents
// (looked up by the index keys of its stored sketch, lsh.KeysOf) that m's
// Compare calls near, and its exact copies — and clusters it. Any method works:
// the set sketches verify by estimated resemblance, supershingle by a shared
// mega-shingle, simhash by Hamming distance, imatch by equal signatures. The
// result depends only on the stored documents, not on the order the stream
// decided them in, and the same state gives the same cluster ids. st must have
// been opened with m's version and key layout (state.Options.ForMethod).
func ReclusterMethod(ctx context.Context, st *state.Store, m lsh.Method, o Options) (*Result, error) {
	algo, err := cluster.ByName(o.Algorithm)
	if err != nil {
		return nil, err
	}
	if v := st.SketchVersion(); v != "" && v != m.Version() {
		return nil, fmt.Errorf("recluster: state was sketched with %s, configured %s", v, m.Version())
	}
	start := time.Now()
	res, edges, err := readGraph(ctx, st, m, o)
	if err != nil {
		return nil, err
	}
	if res.Graph, err = cluster.NewGraph(len(res.Seqs), edges); err != nil {
		return nil, fmt.Errorf("recluster: %w", err)
	}
	res.setClustering(algo(res.Graph))
	if o.WriteBack {
		if err := res.writeBack(st); err != nil {
			return nil, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// setClustering keeps c and names each cluster by its earliest document.
func (res *Result) setClustering(c cluster.Clustering) {
	res.Clustering = c
	res.ClusterIDs = make([]uint64, c.K)
	for node := len(res.Seqs) - 1; node >= 0; node-- { // ends at each cluster's earliest node
		res.ClusterIDs[c.Labels[node]] = res.Seqs[node]
	}
}

// writeBack stores every document's cluster id.
func (res *Result) writeBack(st *state.Store) error {
	ids := make([]uint64, len(res.Seqs))
	for node, label := range res.Clustering.Labels {
		ids[node] = res.ClusterIDs[label]
	}
	var err error
	res.Missing, err = st.SetClusters(res.Seqs, ids)
	return err
}

// readGraph scans the documents in sequence order and collects the edges to
// earlier documents.
func readGraph(ctx context.Context, st *state.Store, m lsh.Method, o Options) (*Result, []cluster.Edge, error) {
	var docs docTable
	var edges []cluster.Edge
	var keys []uint64
	var cands []state.Doc
	capped := 0
	err := st.Scan(func(d state.Doc) error {
		if err := docs.add(ctx, d, o.Progress); err != nil {
			return err
		}
		me := int32(len(docs.seqs) - 1)
		orig, ok, err := st.Exact(d.ContentHash, d.Seq)
		if err != nil {
			return err
		}
		if u, known := docs.node(orig.Seq); ok && known {
			edges = append(edges, cluster.Edge{U: u, V: me, W: 1})
		}
		if keys, err = lsh.KeysOf(m, keys[:0], d.Sketch); err != nil {
			return fmt.Errorf("document %d: %w", d.Seq, err)
		}
		var cut state.Capped
		if cands, cut, err = st.Candidates(cands[:0], keys, d.Seq); err != nil {
			return err
		}
		if cut.Buckets > 0 || cut.Candidates {
			capped++
		}
		for _, c := range cands {
			u, known := docs.node(c.Seq) // unknown: stored after the scan passed it
			if !known || u == me {
				continue
			}
			est, err := m.Compare(d.Sketch, c.Sketch)
			if err != nil {
				return fmt.Errorf("documents %d and %d: %w", c.Seq, d.Seq, err)
			}
			if est.Near && est.Resemblance >= o.Threshold {
				edges = append(edges, cluster.Edge{U: u, V: me, W: float32(max(est.Resemblance, 1e-6))})
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("recluster: %w", err)
	}
	res := docs.result()
	res.Capped = capped
	return res, edges, nil
}
