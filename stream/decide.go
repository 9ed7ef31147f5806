package stream

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// Decision is the verdict on one document and the document it points back to.
type Decision struct {
	Verdict    Verdict
	Of         string  // id of the earliest matching document; "" when unique
	Similarity float64 // to that document; 1 for exact duplicates
	Cluster    uint64
	// OfPos is the original's place in a sharded filter's sequence log (see
	// DeciderOptions.Sequenced), by which a front joins the decisions of
	// several shards; 0 otherwise.
	OfPos uint64
	// Pos is, in sequenced mode, the document's own place in the sequence
	// log: the one it was decided with, or for a replay the one stored at
	// its first append; a document's home shard sends it to the front, which
	// decides the document as at that position.
	Pos uint64
	// Replayed says the decision is the one stored for a redelivered record.
	Replayed bool
}

// DeciderOptions configure a Decider.
type DeciderOptions struct {
	// Containment is the least estimated containment (lsh.Estimate.AinB) of
	// a new document in an earlier one that makes it Contained, when the
	// Method estimates containment; 0 disables the verdict.
	Containment float64
	// Sequenced decides documents that carry their place in a sharded
	// filter's sequence log (state.Doc.Pos), as a shard of the sharded index
	// does: the caller decides them in that order, so the Index's Seq order
	// is the log's; every index key is looked up (a shard holds a part of
	// the documents, each under all its keys); an exact copy is found among the
	// candidates, through the exact key; a unique document's cluster is
	// ClusterOf(its Source), which every shard computes alike; and decisions
	// name the original's Pos (Decision.OfPos).
	Sequenced bool
	// Registry, if set, registers the decider's metrics (the similarity of
	// verified candidates, candidates per lookup).
	Registry prometheus.Registerer
}

// Decider gives documents their verdicts against an Index. DecideBatch is
// called by one goroutine; Retire may be called by another.
//
// A document's verdict depends only on documents stored before it: the replay
// lookup returns the verdict a record already got, and every other lookup is
// bounded by the document's own sequence number. Documents decided in this batch, and in
// earlier batches not yet published, are not findable in the Index; their
// overlays stand in for them, so deciding a batch gives the verdicts that
// deciding its documents one at a time would.
type Decider struct {
	index  Index
	method lsh.Method
	opt    DeciderOptions
	m      *metrics

	cands []state.Doc // reused candidate buffer

	mu      sync.Mutex
	pending []*overlay // decided batches not yet published, oldest first
}

// NewDecider builds a Decider that looks documents up in index and verifies
// them with method, whose keys the index's postings must hold.
func NewDecider(index Index, method lsh.Method, o DeciderOptions) *Decider {
	return newDecider(index, method, o, newMetrics(o.Registry))
}

func newDecider(index Index, method lsh.Method, o DeciderOptions, m *metrics) *Decider {
	return &Decider{index: index, method: method, opt: o, m: m}
}

// DecideStats count a batch's lookup work.
type DecideStats struct {
	Candidates    int // candidates verified
	CappedBuckets int // band buckets cut by state.max_bucket
	CappedLookups int // lookups cut by state.max_candidates
	Replayed      int // documents found already decided
}

// Decided is a batch's decisions: one per document, the new documents to
// stage, and every document whose postings to publish once the output is
// acknowledged (new ones, and replayed ones whose publish a crash may have cut).
type Decided struct {
	Decisions []Decision
	// Stage holds the records to store, in the order of the documents: one
	// for each decided here (DecideProbes: here) and not replayed.
	Stage   []state.Doc
	Publish []state.Doc
	Stats   DecideStats
	overlay *overlay // retired once published
}

// batchView is what one batch's decisions consult besides state.
type batchView struct {
	pending []*overlay // snapshot of earlier unpublished batches
	cur     *overlay
	all     []*overlay // pending, then cur
	stats   *DecideStats
	replays []state.Doc
}

// DecideBatch decides docs in order. Each holds a new document's ID, Source,
// URL, Time, ContentHash, Sketch and index keys (Bands); its Seq and verdict
// fields are set here, on the copies in Decided.Stage.
func (d *Decider) DecideBatch(docs []state.Doc) (Decided, error) { return d.decideBatch(docs, nil) }

// DecideProbes is DecideBatch in one shard of an index partitioned by
// document (DeciderOptions.Sequenced): a document whose here is false is
// stored by another shard, so it is decided against this shard's documents
// only — not looked up as a replay, not staged, and not a candidate for the
// batch's later documents.
func (d *Decider) DecideProbes(docs []state.Doc, here []bool) (Decided, error) {
	return d.decideBatch(docs, here)
}

func (d *Decider) decideBatch(docs []state.Doc, here []bool) (Decided, error) {
	v := &batchView{cur: newOverlay(docs, here), stats: &DecideStats{}}
	d.mu.Lock()
	v.pending = slices.Clone(d.pending)
	d.pending = append(d.pending, v.cur)
	d.mu.Unlock()
	v.all = append(slices.Clip(v.pending), v.cur)
	out := make([]Decision, len(docs))
	for i := range docs {
		dec, err := d.decide(v, docs[i], here == nil || here[i])
		if err != nil {
			d.retire(v.cur)
			return Decided{}, fmt.Errorf("decide %q (%s): %w", docs[i].ID, docs[i].Source, err)
		}
		out[i] = dec
	}
	return Decided{
		Decisions: out, Stage: v.cur.docs, Publish: append(v.replays, v.cur.docs...),
		Stats: *v.stats, overlay: v.cur,
	}, nil
}

// Retire forgets a decided batch's overlay once its documents are published.
func (d *Decider) Retire(dec Decided) { d.retire(dec.overlay) }

func (d *Decider) retire(o *overlay) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending = slices.DeleteFunc(d.pending, func(p *overlay) bool { return p == o })
}

func (d *Decider) decide(v *batchView, doc state.Doc, here bool) (Decision, error) {
	if !here {
		doc.Seq = math.MaxUint64 // everything stored here is before it
		dec, orig, err := d.match(v, &doc)
		if err != nil {
			return Decision{}, err
		}
		d.describe(&dec, &doc, orig)
		return dec, nil
	}
	if stored, ok, err := d.replayed(v, doc); err != nil || ok {
		v.stats.Replayed += btoi(ok)
		return storedDecision(stored), err
	}
	doc.Seq = d.index.Reserve()
	dec, orig, err := d.match(v, &doc)
	if err != nil {
		return Decision{}, err
	}
	d.describe(&dec, &doc, orig)
	if dec.Verdict == ExactDuplicate {
		doc.Bands = nil // its postings would repeat the original's
	}
	v.cur.add(doc)
	return dec, nil
}

// describe fills in dec and doc's verdict fields from the match found, orig
// (nil: none).
func (d *Decider) describe(dec *Decision, doc *state.Doc, orig *state.Doc) {
	doc.Verdict = uint8(dec.Verdict)
	doc.Similarity = float32(dec.Similarity)
	doc.Cluster = d.ownCluster(doc)
	if orig != nil {
		doc.Of, doc.OfID, doc.Cluster = orig.Seq, orig.ID, clusterOf(orig)
		dec.Of = orig.ID
		if d.opt.Sequenced {
			doc.OfPos, dec.OfPos = orig.Pos, orig.Pos
		}
	}
	dec.Cluster, dec.Pos = doc.Cluster, doc.Pos
}

// ownCluster is the cluster id a document founds: its seq, or in sequenced
// mode a hash of its input position that every shard computes alike.
func (d *Decider) ownCluster(doc *state.Doc) uint64 {
	if d.opt.Sequenced {
		return ClusterOf(doc.Source)
	}
	return doc.Seq
}

func (d *Decider) replayed(v *batchView, doc state.Doc) (state.Doc, bool, error) {
	for _, o := range v.all {
		if stored, ok := o.replayed(doc.Source, doc.ContentHash); ok {
			return stored, true, nil
		}
	}
	stored, ok, err := d.index.Replayed(doc.Source, doc.ContentHash)
	if !ok || err != nil {
		return stored, false, err
	}
	if Verdict(stored.Verdict) != ExactDuplicate {
		stored.Bands = doc.Bands // keys are not stored; the same text gives the same ones
	}
	v.replays = append(v.replays, stored)
	return stored, true, nil
}

// match finds the earliest document before doc that it duplicates.
func (d *Decider) match(v *batchView, doc *state.Doc) (Decision, *state.Doc, error) {
	if d.opt.Sequenced {
		return d.matchSequenced(v, doc)
	}
	orig, ok, err := d.index.Exact(doc.ContentHash, doc.Seq)
	if err != nil {
		return Decision{}, nil, err
	}
	for _, o := range v.all {
		if found, ok2 := o.exact(doc.ContentHash); ok2 && (!ok || found.Seq < orig.Seq) {
			orig, ok = found, true
		}
	}
	if ok {
		return Decision{Verdict: ExactDuplicate, Similarity: 1}, &orig, nil
	}
	cands, err := d.candidates(v, doc)
	if err != nil {
		return Decision{}, nil, err
	}
	return d.near(v, doc, cands)
}

// matchSequenced is match in a shard: the candidates are the documents
// stored here before doc in the sequence log that share a key with it,
// earliest first; the earliest exact copy among them (found through the
// exact key, which every copy shares), else the earliest verified near match.
func (d *Decider) matchSequenced(v *batchView, doc *state.Doc) (Decision, *state.Doc, error) {
	cands, err := d.candidates(v, doc)
	if err != nil {
		return Decision{}, nil, err
	}
	// A shard that reads the log again from a committed offset behind its
	// store decides a document stored elsewhere against a store holding
	// documents after it: they are not its candidates.
	cands = slices.DeleteFunc(cands, func(c state.Doc) bool { return doc.Pos != 0 && c.Pos >= doc.Pos })
	for i := range cands {
		if cands[i].ContentHash == doc.ContentHash {
			orig := cands[i]
			return Decision{Verdict: ExactDuplicate, Similarity: 1}, &orig, nil
		}
	}
	return d.near(v, doc, cands)
}

// candidates returns the documents sharing an index key with doc, from the
// Index and the overlays, in sequence order without repeats.
func (d *Decider) candidates(v *batchView, doc *state.Doc) ([]state.Doc, error) {
	keys := doc.Bands
	if !d.opt.Sequenced { // one instance looks up LookupKeys' part; a shard every key, its exact key with them
		keys = lsh.LookupKeys(d.method, keys)
	}
	cands, capped, err := d.index.Candidates(d.cands[:0], keys, doc.Seq)
	if err != nil {
		return nil, err
	}
	v.stats.CappedBuckets += capped.Buckets
	v.stats.CappedLookups += btoi(capped.Candidates)
	cands = mergeCandidates(cands, v, keys)
	d.cands = cands
	return cands, nil
}

// near verifies candidates in order and returns the first that the Method
// calls near (for the set sketches: estimated resemblance ≥ threshold) or,
// when the Method estimates containment, that holds at least the containment
// threshold of this document.
func (d *Decider) near(v *batchView, doc *state.Doc, cands []state.Doc) (Decision, *state.Doc, error) {
	for i := range cands {
		v.stats.Candidates++
		est, err := d.method.Compare(doc.Sketch, cands[i].Sketch)
		if err != nil {
			return Decision{}, nil, fmt.Errorf("candidate %d: %w", cands[i].Seq, err)
		}
		d.m.similarity.Observe(est.Resemblance)
		if dec, ok := d.verdict(est); ok {
			d.m.lookupCands.Observe(float64(i + 1))
			orig := cands[i]
			return dec, &orig, nil
		}
	}
	d.m.lookupCands.Observe(float64(len(cands)))
	return Decision{Verdict: Unique}, nil, nil
}

// verdict turns a Method's estimate against one candidate into a duplicate
// verdict, if it is one. A near-duplicate reports the estimated resemblance;
// a contained document its estimated containment in the candidate.
func (d *Decider) verdict(est lsh.Estimate) (Decision, bool) {
	switch {
	case est.Near:
		return Decision{Verdict: NearDuplicate, Similarity: est.Resemblance}, true
	case d.opt.Containment > 0 && est.Containment && est.AinB >= d.opt.Containment:
		return Decision{Verdict: Contained, Similarity: est.AinB}, true
	}
	return Decision{}, false
}

// mergeCandidates adds the overlays' candidates to those from state, in
// sequence order without repeats: a pending batch being published meanwhile can
// be in both.
func mergeCandidates(cands []state.Doc, v *batchView, keys []uint64) []state.Doc {
	n := len(cands)
	for _, o := range v.pending {
		cands = o.candidates(cands, keys)
	}
	cands = v.cur.candidates(cands, keys)
	if len(v.pending) == 0 || len(cands) == n {
		return cands // state's are sorted and all smaller than the current batch's
	}
	slices.SortStableFunc(cands, func(a, b state.Doc) int { return cmp.Compare(a.Seq, b.Seq) })
	return slices.CompactFunc(cands, func(a, b state.Doc) bool { return a.Seq == b.Seq })
}

func storedDecision(doc state.Doc) Decision {
	return Decision{
		Verdict: Verdict(doc.Verdict), Of: doc.OfID, Similarity: float64(doc.Similarity),
		Cluster: clusterOf(&doc), OfPos: doc.OfPos, Pos: doc.Pos, Replayed: true,
	}
}

func clusterOf(doc *state.Doc) uint64 {
	if doc.Cluster != 0 {
		return doc.Cluster
	}
	return doc.Seq
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
