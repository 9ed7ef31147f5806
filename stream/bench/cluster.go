package bench

import (
	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// Cluster is where the bench's topics are: a bootstrap address and the
// security settings that reach it (the zero Security is plaintext, as the
// embedded broker speaks).
type Cluster struct {
	Addr     string
	Security stream.Security
}

const clientID = "dedupstream-bench"

// Dialer returns a dialer for readers and connections.
func (c Cluster) Dialer() *kafka.Dialer { return c.Security.Dialer(clientID) }

// Transport returns a transport for writers and clients.
func (c Cluster) Transport() *kafka.Transport { return c.Security.Transport(clientID) }

// writer is the bench's producer to topic: hashed keys, acknowledged by all
// replicas, batches of up to 1,000 records sent at once (stream.SendAtOnce).
func (c Cluster) writer(topic string) *kafka.Writer {
	return &kafka.Writer{Addr: kafka.TCP(c.Addr), Topic: topic, Balancer: &kafka.Hash{}, Transport: c.Transport(),
		BatchSize: 1000, BatchTimeout: stream.SendAtOnce, RequiredAcks: kafka.RequireAll}
}
