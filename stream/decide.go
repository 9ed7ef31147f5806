package stream

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// decider gives each prepared record its verdict. decideBatch is called by one
// goroutine; retire may be called by another.
//
// A record's verdict depends only on documents stored before it: the replay
// lookup returns the verdict a record already got, and every other lookup is
// bounded by the record's own sequence number. Documents decided in this batch,
// and in earlier batches whose postings are not published yet, are not
// findable in state; their overlays stand in for them.
type decider struct {
	index  Index
	method lsh.Method
	// containment is the least estimated containment of a new document in a
	// candidate that makes it Contained, for methods that estimate
	// containment; 0 disables the verdict.
	containment float64
	m           *metrics

	cands []state.Doc // reused candidate buffer

	mu      sync.Mutex
	pending []*overlay // decided batches not yet published, oldest first
}

// decideStats counts a batch's lookup work for metrics.
type decideStats struct {
	candidates    int // candidates verified
	cappedBuckets int // band buckets cut by state.max_bucket
	cappedLookups int // lookups cut by state.max_candidates
	replayed      int // records found already decided
}

// decided is a batch's decisions: one outcome per item, the new documents to
// stage, and every document whose postings to publish once the output is
// acknowledged (new ones, and replayed ones whose publish a crash may have cut).
type decided struct {
	outs    []outcome
	stage   []state.Doc
	publish []state.Doc
	overlay *overlay // retire it once published
	stats   decideStats
}

// batchView is what one batch's decisions consult besides state.
type batchView struct {
	pending []*overlay // snapshot of earlier unpublished batches
	cur     *overlay
	all     []*overlay // pending, then cur
	stats   *decideStats
	replays []state.Doc
}

// decideBatch decides every item of a batch in order.
func (d *decider) decideBatch(items []item) (decided, error) {
	v := &batchView{cur: newOverlay(), stats: &decideStats{}}
	d.mu.Lock()
	v.pending = slices.Clone(d.pending)
	d.pending = append(d.pending, v.cur)
	d.mu.Unlock()
	v.all = append(slices.Clip(v.pending), v.cur)
	outs := make([]outcome, len(items))
	for i := range items {
		it := &items[i]
		if it.err != nil {
			outs[i] = outcome{verdict: Invalid, err: it.err}
			continue
		}
		o, err := d.decide(v, it)
		if err != nil {
			d.retire(v.cur)
			return decided{}, fmt.Errorf("decide %q (partition %d offset %d): %w", it.rec.ID, it.msg.Partition, it.msg.Offset, err)
		}
		o.charset = it.rec.Charset
		outs[i] = o
	}
	return decided{
		outs: outs, stage: v.cur.docs, publish: append(v.replays, v.cur.docs...),
		overlay: v.cur, stats: *v.stats,
	}, nil
}

// retire forgets a batch's overlay once its documents are published.
func (d *decider) retire(o *overlay) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending = slices.DeleteFunc(d.pending, func(p *overlay) bool { return p == o })
}

func (d *decider) decide(v *batchView, it *item) (outcome, error) {
	if doc, ok, err := d.replayed(v, it); err != nil || ok {
		v.stats.replayed += btoi(ok)
		return storedOutcome(doc), err
	}
	doc := state.Doc{
		Seq: d.index.Reserve(), ID: it.rec.ID, Source: sourceOf(it.msg), URL: it.rec.URL, Time: it.msg.Time,
		ContentHash: it.hash, Sketch: it.sketch, Bands: it.keys,
	}
	o, orig, err := d.match(v, it, doc.Seq)
	if err != nil {
		return outcome{}, err
	}
	doc.Verdict = uint8(o.verdict)
	doc.Similarity = float32(o.similarity)
	doc.Cluster = doc.Seq
	if orig != nil {
		doc.Of, doc.OfID, doc.Cluster = orig.Seq, orig.ID, clusterOf(orig)
		o.of = orig.ID
	}
	if o.verdict == ExactDuplicate {
		doc.Bands = nil // its postings would repeat the original's
	}
	o.cluster = doc.Cluster
	v.cur.add(doc)
	return o, nil
}

func (d *decider) replayed(v *batchView, it *item) (state.Doc, bool, error) {
	src := sourceOf(it.msg)
	for _, o := range v.all {
		if doc, ok := o.replayed(src, it.hash); ok {
			return doc, true, nil
		}
	}
	doc, ok, err := d.index.Replayed(src, it.hash)
	if !ok || err != nil {
		return doc, false, err
	}
	if Verdict(doc.Verdict) != ExactDuplicate {
		doc.Bands = it.keys // keys are not stored; the same text gives the same ones
	}
	v.replays = append(v.replays, doc)
	return doc, true, nil
}

// match finds the earliest document before seq that this one duplicates.
func (d *decider) match(v *batchView, it *item, seq uint64) (outcome, *state.Doc, error) {
	orig, ok, err := d.index.Exact(it.hash, seq)
	if err != nil {
		return outcome{}, nil, err
	}
	for _, o := range v.all {
		if doc, found := o.exact(it.hash); found && (!ok || doc.Seq < orig.Seq) {
			orig, ok = doc, true
		}
	}
	if ok {
		return outcome{verdict: ExactDuplicate, similarity: 1}, &orig, nil
	}
	return d.near(v, it, seq)
}

// near verifies the index's candidates in sequence order and returns the
// first that the Method calls near (for the set sketches: estimated
// resemblance ≥ threshold) or, when the Method estimates containment, that
// holds at least the containment threshold of this document.
func (d *decider) near(v *batchView, it *item, seq uint64) (outcome, *state.Doc, error) {
	cands, capped, err := d.index.Candidates(d.cands[:0], it.keys, seq)
	if err != nil {
		return outcome{}, nil, err
	}
	v.stats.cappedBuckets += capped.Buckets
	v.stats.cappedLookups += btoi(capped.Candidates)
	cands = mergeCandidates(cands, v, it.keys)
	d.cands = cands
	for i := range cands {
		v.stats.candidates++
		est, err := d.method.Compare(it.sketch, cands[i].Sketch)
		if err != nil {
			return outcome{}, nil, fmt.Errorf("candidate %d: %w", cands[i].Seq, err)
		}
		d.m.similarity.Observe(est.Resemblance)
		if o, ok := d.verdict(est); ok {
			d.m.lookupCands.Observe(float64(i + 1))
			orig := cands[i]
			return o, &orig, nil
		}
	}
	d.m.lookupCands.Observe(float64(len(cands)))
	return outcome{verdict: Unique}, nil, nil
}

// verdict turns a Method's estimate against one candidate into a duplicate
// verdict, if it is one. A near-duplicate reports the estimated resemblance;
// a contained document its estimated containment in the candidate.
func (d *decider) verdict(est lsh.Estimate) (outcome, bool) {
	switch {
	case est.Near:
		return outcome{verdict: NearDuplicate, similarity: est.Resemblance}, true
	case d.containment > 0 && est.Containment && est.AinB >= d.containment:
		return outcome{verdict: Contained, similarity: est.AinB}, true
	}
	return outcome{}, false
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

// sourceOf names a record by its input position, which a redelivery repeats and a
// re-crawl of the same page does not.
func sourceOf(m *kafka.Message) string {
	return m.Topic + "/" + strconv.Itoa(m.Partition) + "/" + strconv.FormatInt(m.Offset, 10)
}

func storedOutcome(doc state.Doc) outcome {
	return outcome{
		verdict: Verdict(doc.Verdict), of: doc.OfID,
		similarity: float64(doc.Similarity), cluster: clusterOf(&doc),
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
