package stream

import (
	"context"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
)

// NewPassthrough builds a pipeline that consumes, forwards every record
// unchanged to the output topic and commits — the same reader, writer, batching
// and commit order as the filter, with no decode, sketch or state. It exists to
// measure the filter's overhead.
func NewPassthrough(cfg Config, log *zap.Logger) *Pipeline {
	if log == nil {
		log = zap.NewNop()
	}
	p := &Pipeline{cfg: cfg, log: log, m: newMetrics(nil), health: newHealth(0)}
	p.stages = p.passthroughStages()
	p.clients(Security{})
	return p
}

// passthroughStages are the passthrough's stages: nothing to prepare or
// decide; emit forwards every record unchanged; publish only commits.
func (p *Pipeline) passthroughStages() stages {
	none := func(context.Context) func(*batch) error { return func(*batch) error { return nil } }
	return stages{decide: none, emit: p.forwardBatch, publish: p.commitForwarded}
}

// forwardBatch is emit for a passthrough pipeline: every record unchanged.
func (p *Pipeline) forwardBatch(ctx context.Context) func(*batch) error {
	return func(b *batch) error {
		out := make([]kafka.Message, len(b.msgs))
		for i, m := range b.msgs {
			out[i] = kafka.Message{Topic: p.cfg.Kafka.Output, Key: m.Key, Value: m.Value, Headers: m.Headers, Time: m.Time}
		}
		return p.write(ctx, out, nil)
	}
}

// commitForwarded is publish for a passthrough pipeline: commit the batch
// and count it forwarded.
func (p *Pipeline) commitForwarded(ctx context.Context) func(*batch) error {
	return func(b *batch) error {
		start := time.Now()
		p.commit(ctx, b.msgs)
		p.observe(TimedCommit, start)
		p.observeLag(b.msgs)
		p.mu.Lock()
		p.counts.Batches++
		p.counts.Records += int64(len(b.msgs))
		p.counts.Forwarded += int64(len(b.msgs))
		p.mu.Unlock()
		return p.step(AfterCommitted, b.n)
	}
}
