package offline

import (
	"context"
	"fmt"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/cluster"
	"github.com/dedupstream/dedupstream/state"
)

// Options configure a re-clustering pass.
type Options struct {
	// Algorithm names a clustering of the similarity graph (cluster.Names()).
	Algorithm string
	// Threshold is the estimated resemblance a candidate pair needs to be an edge.
	Threshold float64
	// WriteBack stores each document's new cluster id in state.
	WriteBack bool
	// Progress, if set, is called every 1,000 documents read (the scan and the
	// candidate verification are one pass).
	Progress func(docs int)
}

// Result is a re-clustering of the stored documents.
type Result struct {
	Seqs       []uint64 // node → document sequence number (arrival order)
	IDs        []string // node → document id
	URLs       []string // node → document URL
	Graph      *cluster.Graph
	Clustering cluster.Clustering
	ClusterIDs []uint64 // cluster label → id: the sequence number of its earliest document
	Missing    int      // documents that expired before write-back
	Elapsed    time.Duration
}

// Recluster reads every stored document, builds the graph of verified
// near-duplicate pairs — each document's LSH candidates among earlier documents
// whose estimated resemblance reaches the threshold, and its exact copies — and
// clusters it. The result depends only on the stored documents, not on the
// order the stream decided them in, and the same state gives the same cluster ids.
func Recluster(ctx context.Context, st *state.Store, sk *lsh.Sketcher, o Options) (*Result, error) {
	algo, err := cluster.ByName(o.Algorithm)
	if err != nil {
		return nil, err
	}
	if v := st.SketchVersion(); v != "" && v != sk.Params().Version() {
		return nil, fmt.Errorf("recluster: state was sketched with %s, configured %s", v, sk.Params().Version())
	}
	start := time.Now()
	res, edges, err := readGraph(ctx, st, sk, o)
	if err != nil {
		return nil, err
	}
	if res.Graph, err = cluster.NewGraph(len(res.Seqs), edges); err != nil {
		return nil, fmt.Errorf("recluster: %w", err)
	}
	res.Clustering = algo(res.Graph)
	res.ClusterIDs = make([]uint64, res.Clustering.K)
	for node := len(res.Seqs) - 1; node >= 0; node-- { // ends at each cluster's earliest node
		res.ClusterIDs[res.Clustering.Labels[node]] = res.Seqs[node]
	}
	if o.WriteBack {
		ids := make([]uint64, len(res.Seqs))
		for node, label := range res.Clustering.Labels {
			ids[node] = res.ClusterIDs[label]
		}
		if res.Missing, err = st.SetClusters(res.Seqs, ids); err != nil {
			return nil, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// readGraph scans the documents in sequence order and collects the edges to
// earlier documents.
func readGraph(ctx context.Context, st *state.Store, sk *lsh.Sketcher, o Options) (*Result, []cluster.Edge, error) {
	res := &Result{}
	node := make(map[uint64]int32)
	var edges []cluster.Edge
	var sig, other lsh.Signature
	var bands []uint64
	var cands []state.Doc
	err := st.Scan(func(d state.Doc) error {
		if len(res.Seqs)%1_000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if o.Progress != nil && len(res.Seqs) > 0 {
				o.Progress(len(res.Seqs))
			}
		}
		me := int32(len(res.Seqs))
		node[d.Seq] = me
		res.Seqs, res.IDs, res.URLs = append(res.Seqs, d.Seq), append(res.IDs, d.ID), append(res.URLs, d.URL)
		var err error
		if sig, err = lsh.DecodeSignature(sig, d.Sketch); err != nil {
			return fmt.Errorf("document %d: %w", d.Seq, err)
		}
		orig, ok, err := st.Exact(d.ContentHash, d.Seq)
		if err != nil {
			return err
		}
		if u, known := node[orig.Seq]; ok && known {
			edges = append(edges, cluster.Edge{U: u, V: me, W: 1})
		}
		bands = sk.BandKeys(bands[:0], sig)
		if cands, _, err = st.Candidates(cands[:0], bands, d.Seq); err != nil {
			return err
		}
		for _, c := range cands {
			if other, err = lsh.DecodeSignature(other, c.Sketch); err != nil {
				return fmt.Errorf("document %d: %w", c.Seq, err)
			}
			u, known := node[c.Seq] // unknown: stored after the scan passed it
			if s := lsh.Similarity(sig, other); known && s >= o.Threshold {
				edges = append(edges, cluster.Edge{U: u, V: me, W: float32(s)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("recluster: %w", err)
	}
	return res, edges, nil
}
