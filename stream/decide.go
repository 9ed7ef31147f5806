package stream

import (
	"fmt"
	"strconv"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// decider gives each prepared record its verdict. It is used by one goroutine.
//
// A record's verdict depends only on documents stored before it: the replay
// lookup returns the verdict a record already got, and every other lookup is
// bounded by the record's own sequence number. Documents decided earlier in the
// same batch are not stored yet; the batch overlay stands in for them.
type decider struct {
	index     Index
	threshold float64
	stats     *decideStats

	cands []state.Doc   // reused candidate buffer
	sig   lsh.Signature // reused decoded candidate signature
	batch *overlay      // documents decided in the current batch
	// republish holds replayed documents whose postings are written again:
	// the crash that caused the replay may have come before they were.
	republish []state.Doc
}

// decideStats counts lookup work for metrics.
type decideStats struct {
	candidates    int // candidates verified
	cappedBuckets int // band buckets cut by state.max_bucket
	cappedLookups int // lookups cut by state.max_candidates
	replayed      int // records found already decided
}

// decided is a batch's decisions: one outcome per item, the new documents to
// stage, and every document whose postings to publish once the output is acknowledged.
type decided struct {
	outs    []outcome
	stage   []state.Doc
	publish []state.Doc
}

// decideBatch decides every item of a batch in order.
func (d *decider) decideBatch(items []item) (decided, error) {
	d.batch = newOverlay()
	d.republish = d.republish[:0]
	outs := make([]outcome, len(items))
	for i := range items {
		it := &items[i]
		if it.err != nil {
			outs[i] = outcome{verdict: Invalid, err: it.err}
			continue
		}
		o, err := d.decide(it)
		if err != nil {
			return decided{}, fmt.Errorf("decide %q (partition %d offset %d): %w", it.rec.ID, it.msg.Partition, it.msg.Offset, err)
		}
		outs[i] = o
	}
	return decided{outs: outs, stage: d.batch.docs, publish: append(d.republish, d.batch.docs...)}, nil
}

func (d *decider) decide(it *item) (outcome, error) {
	if doc, ok, err := d.replayed(it); err != nil || ok {
		d.stats.replayed += btoi(ok)
		return storedOutcome(doc), err
	}
	doc := state.Doc{
		Seq: d.index.Reserve(), ID: it.rec.ID, Source: sourceOf(it.msg), URL: it.rec.URL, Time: it.msg.Time,
		ContentHash: it.hash, Sketch: it.sig.AppendBinary(nil), Bands: it.bands,
	}
	o, orig, err := d.match(it, doc.Seq)
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
	d.batch.add(doc)
	return o, nil
}

func (d *decider) replayed(it *item) (state.Doc, bool, error) {
	src := sourceOf(it.msg)
	if doc, ok := d.batch.replayed(src, it.hash); ok {
		return doc, true, nil
	}
	doc, ok, err := d.index.Replayed(src, it.hash)
	if ok && Verdict(doc.Verdict) != ExactDuplicate {
		doc.Bands = it.bands // bands are not stored; the same text gives the same ones
	}
	if ok {
		d.republish = append(d.republish, doc)
	}
	return doc, ok, err
}

// match finds the earliest document before seq that it duplicates.
func (d *decider) match(it *item, seq uint64) (outcome, *state.Doc, error) {
	orig, ok, err := d.index.Exact(it.hash, seq)
	if err != nil {
		return outcome{}, nil, err
	}
	if !ok {
		orig, ok = d.batch.exact(it.hash)
	}
	if ok {
		return outcome{verdict: ExactDuplicate, similarity: 1}, &orig, nil
	}
	return d.near(it, seq)
}

// near verifies LSH candidates in sequence order and returns the first whose
// estimated resemblance reaches the threshold.
func (d *decider) near(it *item, seq uint64) (outcome, *state.Doc, error) {
	cands, capped, err := d.index.Candidates(d.cands[:0], it.bands, seq)
	if err != nil {
		return outcome{}, nil, err
	}
	d.stats.cappedBuckets += capped.Buckets
	d.stats.cappedLookups += btoi(capped.Candidates)
	cands = d.batch.candidates(cands, it.bands)
	d.cands = cands
	for i := range cands {
		d.stats.candidates++
		if d.sig, err = lsh.DecodeSignature(d.sig, cands[i].Sketch); err != nil {
			return outcome{}, nil, fmt.Errorf("candidate %d: %w", cands[i].Seq, err)
		}
		if sim := lsh.Similarity(it.sig, d.sig); sim >= d.threshold {
			orig := cands[i]
			return outcome{verdict: NearDuplicate, similarity: sim}, &orig, nil
		}
	}
	return outcome{verdict: Unique}, nil, nil
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
