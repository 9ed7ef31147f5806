package bench

import (
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// Cluster is where the bench's topics are: a bootstrap address and the
// security settings that reach it (the zero Security is plaintext, as the
// embedded broker speaks).
type Cluster struct {
	Addr     string
	Security stream.Security
	// BrokerPID is the embedded broker's process (0: brokers outside the
	// bench), whose CPU the runs report beside their own: on one machine the
	// broker's share of the cores is part of what a run measures.
	BrokerPID int
}

// brokerCPU is the broker process's CPU time so far; false for brokers
// outside the bench, or where it cannot be read.
func (c Cluster) brokerCPU() (time.Duration, bool) {
	if c.BrokerPID == 0 {
		return 0, false
	}
	return ProcCPU(c.BrokerPID)
}

// Usage is the CPU this process and the embedded broker's spent over a span
// of wall time.
type Usage struct {
	CPU, BrokerCPU, Elapsed time.Duration
	BrokerKnown             bool // BrokerCPU was read (not for brokers outside the bench)
}

// Cores is how many cores the two processes kept busy on average.
func (u Usage) Cores() float64 {
	if u.Elapsed <= 0 {
		return 0
	}
	return (u.CPU + u.BrokerCPU).Seconds() / u.Elapsed.Seconds()
}

// StartUsage starts measuring a span of c's usage; the function it returns
// ends the span.
func (c Cluster) StartUsage() func() Usage {
	start, cpu := time.Now(), CPUTime()
	broker, known := c.brokerCPU()
	return func() Usage {
		u := Usage{CPU: CPUTime() - cpu, Elapsed: time.Since(start)}
		if after, ok := c.brokerCPU(); ok && known {
			u.BrokerCPU, u.BrokerKnown = after-broker, true
		}
		return u
	}
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
