package stream_test

import (
	"context"
	"time"

	"github.com/segmentio/kafka-go"
)

// drained reports whether the group has committed every record of the input topic.
func (h *harness) drained() bool {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &kafka.Client{Addr: kafka.TCP(h.broker.Addr())}
	conn, err := kafka.Dial("tcp", h.broker.Addr())
	if err != nil {
		h.t.Fatal(err)
	}
	defer conn.Close()
	parts, err := conn.ReadPartitions(topicIn)
	if err != nil {
		h.t.Fatal(err)
	}
	ids := make([]int, len(parts))
	reqs := make([]kafka.OffsetRequest, len(parts))
	for i, p := range parts {
		ids[i] = p.ID
		reqs[i] = kafka.LastOffsetOf(p.ID)
	}
	ends, err := c.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topicIn: reqs}})
	if err != nil {
		h.t.Fatal(err)
	}
	got, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: h.cfg.Kafka.Group, Topics: map[string][]int{topicIn: ids}})
	if err != nil {
		h.t.Fatal(err)
	}
	committed := make(map[int]int64)
	for _, p := range got.Topics[topicIn] {
		committed[p.Partition] = p.CommittedOffset
	}
	for _, e := range ends.Topics[topicIn] {
		if committed[e.Partition] < e.LastOffset {
			return false
		}
	}
	return true
}
