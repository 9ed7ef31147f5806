package embedded

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"
)

// Produce writes msgs to topic on brokers (comma-separated host:port), over
// connections made by rt (nil: kafka-go's default transport), and waits for
// every broker's acknowledgement. Like ReadAll it is for demos, tools and
// tests, and works with any broker.
func Produce(ctx context.Context, rt kafka.RoundTripper, brokers, topic string, msgs []kafka.Message) error {
	w := &kafka.Writer{
		Addr: kafka.TCP(strings.Split(brokers, ",")...), Topic: topic, Balancer: &kafka.Hash{},
		BatchSize: 500, BatchTimeout: time.Millisecond, RequiredAcks: kafka.RequireAll,
		Transport: rt,
	}
	defer w.Close()
	for i := 0; i < len(msgs); i += 500 {
		if err := w.WriteMessages(ctx, msgs[i:min(i+500, len(msgs))]...); err != nil {
			return fmt.Errorf("produce to %s: %w", topic, err)
		}
	}
	return nil
}
