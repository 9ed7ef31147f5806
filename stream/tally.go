package stream

import (
	"strconv"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/prepare"
)

// tally updates counts and metrics after a batch is committed.
func (p *Pipeline) tally(b *batch) {
	p.observeLag(b.msgs)
	items, st, outs := b.items, &b.dec.Stats, b.dec.outs
	// The batch's own series first: once a scrape sees every record in
	// dedupstream_records_total, it sees all they add to the others.
	p.m.batchSize.Observe(float64(len(outs)))
	p.m.replayed.Add(float64(st.Replayed))
	p.m.candidates.Add(float64(st.Candidates))
	p.m.capped.WithLabelValues("bucket").Add(float64(st.CappedBuckets))
	p.m.capped.WithLabelValues("candidates").Add(float64(st.CappedLookups))
	p.mu.Lock()
	c := &p.counts
	c.Batches++
	c.Records += int64(len(outs))
	c.Replayed += int64(st.Replayed)
	for i := range outs {
		p.tallyOne(c, &items[i], &outs[i])
	}
	p.mu.Unlock()
}

func (p *Pipeline) tallyOne(c *Counts, it *prepare.Item, o *outcome) {
	p.m.records.WithLabelValues(o.Verdict.String()).Inc()
	if it.Truncated {
		p.m.capped.WithLabelValues("tokens").Inc()
		p.log.Info("document cut at clean.max_tokens", zap.String("topic", it.Msg.Topic), zap.Int("partition", it.Msg.Partition),
			zap.Int64("offset", it.Msg.Offset), zap.String("id", it.Rec.ID))
	}
	if it.KeysCut {
		p.m.capped.WithLabelValues("keys").Inc()
	}
	if o.Verdict == Invalid {
		c.Invalid++
		p.m.deadLetter.WithLabelValues(o.err.Class).Inc()
		p.log.Info("dead-lettered", zap.String("topic", it.Msg.Topic), zap.Int("partition", it.Msg.Partition),
			zap.Int64("offset", it.Msg.Offset), zap.String("class", o.err.Class), zap.String("reason", o.err.Msg))
		return
	}
	if it.Rec.Charset != "" {
		p.m.charset.WithLabelValues(it.Rec.Charset).Inc()
	}
	switch o.Verdict {
	case Unique:
		c.Unique++
	case NearDuplicate:
		c.NearDuplicate++
	case ExactDuplicate:
		c.ExactDuplicate++
	case Contained:
		c.Contained++
	}
	switch {
	case p.cfg.Mode == ModeTag || !o.Verdict.Duplicate():
		c.Forwarded++
	case p.cfg.Kafka.Duplicates != "":
		c.ToDuplicates++
	default:
		c.Dropped++
		p.m.dropped.Inc()
	}
}

// observeLag sets each partition's lag from the last committed record of the
// batch: the partition's high watermark when it was fetched, minus the offset
// committed (the record's offset + 1).
func (p *Pipeline) observeLag(msgs []kafka.Message) {
	last := make(map[int]*kafka.Message, 4)
	for i := range msgs {
		last[msgs[i].Partition] = &msgs[i]
	}
	for part, m := range last {
		p.m.lag.WithLabelValues(strconv.Itoa(part)).Set(float64(max(m.HighWaterMark-m.Offset-1, 0)))
	}
}

// Add adds o to c, field by field: the counts of several pipelines (a demo's
// instances) as one.
func (c *Counts) Add(o Counts) {
	c.Records += o.Records
	c.Unique += o.Unique
	c.NearDuplicate += o.NearDuplicate
	c.ExactDuplicate += o.ExactDuplicate
	c.Contained += o.Contained
	c.Invalid += o.Invalid
	c.Forwarded += o.Forwarded
	c.ToDuplicates += o.ToDuplicates
	c.Dropped += o.Dropped
	c.Replayed += o.Replayed
	c.Batches += o.Batches
}
