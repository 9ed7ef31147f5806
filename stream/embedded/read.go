package embedded

import (
	"context"
	"fmt"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// ReadAll reads every record currently in topic on the brokers at addr: each
// partition from its first offset to its high watermark, partitions in order.
// It is for demos and tests that check what a run wrote; it works with any
// broker, embedded or not.
func ReadAll(ctx context.Context, addr, topic string) ([]kafka.Message, error) {
	return ReadAllWith(ctx, kafka.DefaultDialer, addr, topic)
}

// ReadAllWith is ReadAll over connections made by d, which may carry TLS and
// SASL settings.
func ReadAllWith(ctx context.Context, d *kafka.Dialer, addr, topic string) ([]kafka.Message, error) {
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	parts, err := conn.ReadPartitions(topic)
	conn.Close()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", topic, err)
	}
	var out []kafka.Message
	for _, p := range parts {
		got, err := readPartition(ctx, d, addr, topic, p.ID)
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func readPartition(ctx context.Context, d *kafka.Dialer, addr, topic string, partition int) ([]kafka.Message, error) {
	conn, err := d.DialLeader(ctx, "tcp", addr, topic, partition)
	if err != nil {
		return nil, err
	}
	first, last, err := conn.ReadOffsets()
	conn.Close()
	if err != nil || last <= first {
		return nil, err
	}
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{addr}, Topic: topic, Partition: partition, MaxWait: 50e6, Dialer: d})
	defer r.Close()
	var out []kafka.Message
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			return out, fmt.Errorf("read %s/%d at %d of [%d, %d): %w", topic, partition, len(out), first, last, err)
		}
		out = append(out, m)
		if m.Offset >= last-1 {
			return out, nil
		}
	}
}

// GroupLag returns how many records of topic the consumer group has not yet
// committed, summed over partitions (stream.GroupLags: a partition with no
// commit counts whole).
// Like ReadAll it works with any broker.
func GroupLag(ctx context.Context, addr, group, topic string) (int64, error) {
	return GroupLagWith(ctx, nil, addr, group, topic)
}

// GroupLagWith is GroupLag over rt (nil: kafka-go's default transport), which
// may carry TLS and SASL settings.
func GroupLagWith(ctx context.Context, rt kafka.RoundTripper, addr, group, topic string) (int64, error) {
	lags, err := stream.GroupLags(ctx, &kafka.Client{Addr: kafka.TCP(addr), Transport: rt}, group, topic)
	if err != nil {
		return 0, fmt.Errorf("lag of %s on %s: %w", group, topic, err)
	}
	var lag int64
	for _, l := range lags {
		lag += l
	}
	return lag, nil
}
