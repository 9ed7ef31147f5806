package offline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/offline/algo/fim"
	"github.com/dedupstream/dedupstream/state"
)

// ClosedOptions configure ClosedClusters.
type ClosedOptions struct {
	// MinCommon is the support threshold: the fingerprints every member of a
	// set must share. At least 1.
	MinCommon int
	// Maximal keeps only the maximal sets (no frequent proper superset) instead
	// of every closed one.
	Maximal bool
	// MaxSets stops mining after this many sets of two or more documents; 0
	// means no limit.
	MaxSets int
	// MaxMemory stops mining when the miner's working memory for one
	// component would exceed this many bytes (approximately, as
	// fim.Options.MaxMemory); 0 means no limit.
	MaxMemory int64
	// SortMemory bounds the bytes of (fingerprint, document) pairs sorted at
	// once: when they do not fit, the state is read in more passes, each
	// taking a share of the fingerprints. 0 means DefaultSortMemory.
	SortMemory int64
	// Timeout, when positive, stops reading and mining after this long, as
	// a context deadline does.
	Timeout time.Duration
	// WriteBack stores the flat clustering's cluster ids in state.
	WriteBack bool
	// Progress, if set, is called every 10,000 documents of the first pass.
	Progress func(docs int)
}

// DefaultSortMemory is ClosedOptions.SortMemory when it is 0.
const DefaultSortMemory = 256 << 20

// StoppedMaxSets is ClosedResult.Mining.Stopped when MaxSets was reached.
const StoppedMaxSets = "max sets"

// ClosedSet is a closed set of documents: its members (nodes of the Result,
// ascending), at least two, and Common, the number of fingerprints all of them
// share — no document outside the set shares all of these, and every pair of
// members shares at least Common.
type ClosedSet struct {
	Members []int32
	Common  int
}

// ClosedResult is the outcome of ClosedClusters.
type ClosedResult struct {
	// Result holds the documents and the flat clustering derived from Sets
	// (see ClosedClusters); its Graph is nil.
	Result
	// Sets are the closed (or maximal) sets found, ordered by their members.
	Sets []ClosedSet
	// Context describes the fingerprints × documents context that was mined.
	Context ContextStats
	// Mining says how far mining got: Itemsets counts every set the miner
	// emitted (singletons included), Complete whether every component was
	// mined to the end, Stopped why not.
	Mining fim.Result
	// Components is the number of connected components of the context (groups
	// of documents linked by shared fingerprints); ComponentsMined how many
	// were mined completely.
	Components, ComponentsMined int
}

// ContextStats describes a context.
type ContextStats struct {
	Fingerprints int64 // (document, fingerprint) occurrences read
	Passes       int   // scans of the state that sorted and merged them
	Shared       int64 // fingerprints held by two documents or more: the transactions
	Distinct     int   // distinct document sets among them (mined once each, with their count)
	Documents    int   // documents left in the context after pruning
}

// ClosedClusters finds the Kuznetsov–Ignatov closed-set clusters of the stored
// documents: in the context whose transactions are fingerprints and whose items
// are documents, every closed set of at least two documents that share at least
// MinCommon fingerprints, with its number of common fingerprints. The
// fingerprints are the sketch's sample (lsh.Fingerprints): for minhash, oph and
// supershingle the pair (permutation, minimum), for bottomk, modm and full the
// stored values; simhash and imatch have none and are refused.
//
// The inverted lists fingerprint → documents are built by the papers'
// sort-and-merge: (fingerprint, document) pairs sorted in as many passes over
// the state as SortMemory requires, fingerprints of one document dropped, equal
// document lists merged into one weighted transaction. Documents in fewer than
// MinCommon shared fingerprints are pruned, the context is split into connected
// components (no closed set spans two) and each is mined with offline/algo/fim.
//
// The flat clustering gives each document to the first set containing it, sets
// taken largest first, then by more common fingerprints, then by earliest
// member; documents in no set are singletons. Two documents of one flat
// cluster are always in one closed set, so they share at least MinCommon
// fingerprints.
func ClosedClusters(ctx context.Context, st *state.Store, m lsh.Method, o ClosedOptions) (*ClosedResult, error) {
	if o.MinCommon < 1 || o.MaxSets < 0 || o.MaxMemory < 0 || o.SortMemory < 0 {
		return nil, fmt.Errorf("closed sets: min common %d (want >= 1), max sets %d, max memory %d, sort memory %d",
			o.MinCommon, o.MaxSets, o.MaxMemory, o.SortMemory)
	}
	if v := st.SketchVersion(); v != "" && v != m.Version() {
		return nil, fmt.Errorf("closed sets: state was sketched with %s, configured %s", v, m.Version())
	}
	if _, err := lsh.Fingerprints(m, nil, nil); errors.Is(err, lsh.ErrNoFingerprints) {
		return nil, fmt.Errorf("closed sets: %w", err)
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	start := time.Now()
	cx, docs, err := buildContext(ctx, st, m, o)
	if err != nil {
		return nil, fmt.Errorf("closed sets: %w", err)
	}
	res := &ClosedResult{Result: *docs.result(), Context: cx.stats}
	cx.prune(int32(o.MinCommon))
	res.Context.Documents = cx.documents()
	if err := res.mine(ctx, cx, o); err != nil {
		return nil, fmt.Errorf("closed sets: %w", err)
	}
	res.setClustering(flatten(len(res.Seqs), res.Sets))
	if o.WriteBack {
		if err := res.writeBack(st); err != nil {
			return nil, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// mine mines every component of cx in order of its earliest document.
func (res *ClosedResult) mine(ctx context.Context, cx *fpContext, o ClosedOptions) error {
	comps := cx.components()
	res.Components = len(comps)
	res.Mining.Complete = true
	mineStart := time.Now()
	defer func() { res.Mining.Elapsed = time.Since(mineStart) }()
	for _, comp := range comps {
		ds, nodes, err := cx.dataset(comp)
		if err != nil {
			return err
		}
		r, err := fim.Mine(ctx, ds, fim.Options{MinSupport: o.MinCommon, Maximal: o.Maximal, MaxMemory: o.MaxMemory},
			func(items []int32, support int) error {
				if len(items) < 2 {
					return nil
				}
				if o.MaxSets > 0 && len(res.Sets) == o.MaxSets {
					return errMaxSets
				}
				set := ClosedSet{Members: make([]int32, len(items)), Common: support}
				for k, it := range items {
					set.Members[k] = nodes[it]
				}
				res.Sets = append(res.Sets, set)
				return nil
			})
		res.Mining.Itemsets += r.Itemsets
		switch {
		case errors.Is(err, errMaxSets):
			r.Stopped = StoppedMaxSets
		case err != nil:
			return err
		}
		if !r.Complete {
			res.Mining.Complete, res.Mining.Stopped = false, r.Stopped
			break
		}
		res.ComponentsMined++
	}
	slices.SortFunc(res.Sets, func(a, b ClosedSet) int { return slices.Compare(a.Members, b.Members) })
	return nil
}

var errMaxSets = errors.New(StoppedMaxSets)

// flatten turns closed sets into a partition of n nodes: each node goes to the
// first set containing it, sets taken largest first, then by more common
// fingerprints, then by earliest member.
func flatten(n int, sets []ClosedSet) cluster.Clustering {
	order := make([]int, len(sets))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		sa, sb := sets[a], sets[b]
		return cmp.Or(cmp.Compare(len(sb.Members), len(sa.Members)), cmp.Compare(sb.Common, sa.Common),
			slices.Compare(sa.Members, sb.Members))
	})
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = -1
	}
	for rank, s := range order {
		for _, u := range sets[s].Members {
			if labels[u] < 0 {
				labels[u] = int32(rank)
			}
		}
	}
	next := int32(len(sets))
	for u := range labels {
		if labels[u] < 0 {
			labels[u] = next
			next++
		}
	}
	return cluster.FromLabels(labels, int(next))
}
