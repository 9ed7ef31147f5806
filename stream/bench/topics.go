package bench

import (
	"context"
	"fmt"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/shard"
)

// TopicBytes sums the key and value bytes of every record of topic, reading
// each partition from its first offset to its end, and sums count (1 per
// record when nil) over the records of each partition.
func TopicBytes(ctx context.Context, c Cluster, topic string, count func(value []byte) int) (int64, []int64, error) {
	conn, err := c.Dialer().DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return 0, nil, err
	}
	parts, err := conn.ReadPartitions(topic)
	conn.Close()
	if err != nil {
		return 0, nil, err
	}
	var n int64
	records := make([]int64, len(parts))
	for i, p := range parts {
		err := shard.ReadPartition(ctx, c.Dialer(), c.Addr, topic, p.ID, func(m *kafka.Message) {
			n += int64(len(m.Key) + len(m.Value))
			if count == nil {
				records[i]++
			} else {
				records[i] += int64(count(m.Value))
			}
		})
		if err != nil {
			return n, nil, fmt.Errorf("read %s partition %d: %w", topic, p.ID, err)
		}
	}
	return n, records, nil
}

// MaxOverMean is the largest count over the mean count.
func MaxOverMean(counts []int64) float64 {
	var sum, top int64
	for _, c := range counts {
		sum, top = sum+c, max(top, c)
	}
	if sum == 0 {
		return 0
	}
	return float64(top) * float64(len(counts)) / float64(sum)
}
