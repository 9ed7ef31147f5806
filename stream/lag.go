package stream

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"
)

// SampleLag asks the brokers for the input topic's high watermarks and the
// group's committed offsets and sets dedupstream_consumer_lag_records of every
// partition to their difference. The pipeline also sets the gauge at each
// commit, from the watermarks its fetches saw; sampling from the side keeps
// the lag growing while the filter is stalled or its partitions are not
// assigned, when no commit happens — which is when an alert on lag matters.
// A partition with no committed offset counts from its first offset.
func (p *Pipeline) SampleLag(ctx context.Context) error {
	lags, err := GroupLags(ctx, p.lagClient, p.cfg.Kafka.Group, p.cfg.Kafka.Input)
	if err != nil {
		return err
	}
	for part, lag := range lags {
		p.m.lag.WithLabelValues(strconv.Itoa(part)).Set(float64(lag))
	}
	return nil
}

// GroupLags returns, by partition of topic, how many records the consumer
// group has not yet committed: the high watermark less the committed offset.
// A partition with no committed offset counts from its first offset; one
// whose offsets the brokers could not list is left out.
func GroupLags(ctx context.Context, c *kafka.Client, group, topic string) (map[int]int64, error) {
	offs, err := groupOffsets(ctx, c, group, topic)
	if err != nil {
		return nil, err
	}
	lags := make(map[int]int64, len(offs))
	for part, o := range offs {
		lags[part] = o.lag()
	}
	return lags, nil
}

// partOffsets are a partition's committed offset (its first offset when the
// group has committed none) and its high watermark.
type partOffsets struct{ committed, end int64 }

func (o partOffsets) lag() int64 { return max(o.end-o.committed, 0) }

// groupOffsets returns the committed offsets and high watermarks of topic's
// partitions for group; a partition whose offsets the brokers could not list
// is left out.
func groupOffsets(ctx context.Context, c *kafka.Client, group, topic string) (map[int]partOffsets, error) {
	meta, err := c.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		return nil, fmt.Errorf("lag: metadata: %w", err)
	}
	if len(meta.Topics) != 1 || meta.Topics[0].Error != nil {
		return nil, fmt.Errorf("lag: metadata of %s: %v", topic, meta.Topics)
	}
	var parts []int
	var reqs []kafka.OffsetRequest
	for _, part := range meta.Topics[0].Partitions {
		parts = append(parts, part.ID)
		reqs = append(reqs, kafka.FirstOffsetOf(part.ID), kafka.LastOffsetOf(part.ID))
	}
	offs, err := c.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: reqs}})
	if err != nil {
		return nil, fmt.Errorf("lag: list offsets: %w", err)
	}
	committed, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: parts}})
	if err != nil {
		return nil, fmt.Errorf("lag: offset fetch: %w", err)
	}
	if committed.Error != nil {
		return nil, fmt.Errorf("lag: offset fetch: %w", committed.Error)
	}
	done := make(map[int]int64, len(parts))
	for _, cp := range committed.Topics[topic] {
		if cp.Error == nil && cp.CommittedOffset >= 0 {
			done[cp.Partition] = cp.CommittedOffset
		}
	}
	out := make(map[int]partOffsets, len(parts))
	for _, po := range offs.Topics[topic] {
		if po.Error != nil {
			continue
		}
		from, ok := done[po.Partition]
		if !ok {
			from = po.FirstOffset
		}
		out[po.Partition] = partOffsets{committed: from, end: po.LastOffset}
	}
	return out, nil
}

// newLagClient is the client SampleLag asks the brokers with. It connects
// only when used.
func newLagClient(cfg Config, sec Security) *kafka.Client {
	return &kafka.Client{Addr: kafka.TCP(cfg.Kafka.Brokers...), Timeout: 5 * time.Second,
		Transport: sec.transport(cfg.Kafka.ClientID)}
}
