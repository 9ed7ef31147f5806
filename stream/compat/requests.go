package compat

import (
	"fmt"

	"github.com/segmentio/kafka-go/protocol"
)

// KafkaGo is the kafka-go release the kafka.Conn versions below were read
// from (conn.go, consumergroup.go, reader.go). A test fails when go.mod moves
// to another release, so that they are read again.
const KafkaGo = "v0.4.51"

// Part is the part of kafka-go that sends a request.
type Part string

// The two ways kafka-go picks versions (see the package doc).
const (
	Conn      Part = "kafka.Conn"      // readers, consumer groups
	Transport Part = "kafka.Transport" // writers, clients
)

// API keys of the requests the filter sends.
const (
	Produce          int16 = 0
	Fetch            int16 = 1
	ListOffsets      int16 = 2
	Metadata         int16 = 3
	OffsetCommit     int16 = 8
	OffsetFetch      int16 = 9
	FindCoordinator  int16 = 10
	JoinGroup        int16 = 11
	Heartbeat        int16 = 12
	LeaveGroup       int16 = 13
	SyncGroup        int16 = 14
	SaslHandshake    int16 = 17
	ApiVersions      int16 = 18
	CreateTopics     int16 = 19
	DescribeConfigs  int16 = 32
	SaslAuthenticate int16 = 36
)

// Request is one request the filter sends through one part of kafka-go.
type Request struct {
	Key  int16
	Part Part
	Use  string // what the filter sends it for
	// Optional requests are skipped on a broker that does not offer them:
	// the filter goes on without what they read.
	Optional bool
	// conn are the versions a kafka.Conn chooses among, ascending (one:
	// fixed); nil for a kafka.Transport request.
	conn []int16
}

// Name is the request's Kafka name, e.g. "JoinGroup".
func (r Request) Name() string { return protocol.ApiKey(r.Key).String() }

// Needs says which optional features the filter uses.
type Needs struct {
	Sharded      bool // index.shards > 0: internal topics are created and checked
	SASL         bool // kafka.sasl.mechanism is set
	CreateTopics bool // kafka.create_topics: missing topics are created
}

// Requests returns the requests a filter with needs n sends, in the order a
// start sends them.
func Requests(n Needs) []Request {
	reqs := []Request{
		{Key: ApiVersions, Part: Conn, Use: "every connection, first", conn: []int16{0}},
		{Key: Metadata, Part: Conn, Use: "the cluster's brokers, for this check (Conn.Brokers)", conn: []int16{1}},
	}
	if n.SASL {
		reqs = append(reqs,
			Request{Key: SaslHandshake, Part: Conn, Use: "SASL on reader connections", conn: []int16{0, 1}},
			Request{Key: SaslAuthenticate, Part: Conn, Use: "SASL on reader connections, after SaslHandshake v1", conn: []int16{0}},
			Request{Key: SaslHandshake, Part: Transport, Use: "SASL on writer and client connections"},
			Request{Key: SaslAuthenticate, Part: Transport, Use: "SASL on writer and client connections, after any SaslHandshake"},
		)
	}
	reqs = append(reqs, Request{Key: Metadata, Part: Transport, Use: "all topics, for the topic check"})
	switch {
	case n.Sharded:
		reqs = append(reqs, Request{Key: CreateTopics, Part: Transport, Use: "the internal topics G.probes, G.answers (G.standbys), and with kafka.create_topics missing ones"})
	case n.CreateTopics:
		reqs = append(reqs, Request{Key: CreateTopics, Part: Transport, Use: "missing topics (kafka.create_topics)"})
	}
	if n.Sharded {
		reqs = append(reqs, Request{Key: DescribeConfigs, Part: Transport, Use: "retention.ms of G.probes, max.message.bytes of the topics"})
	} else {
		reqs = append(reqs, Request{Key: DescribeConfigs, Part: Transport, Optional: true,
			Use: "max.message.bytes of the topics (optional: without it the writers keep kafka.max_batch_bytes)"})
	}
	return append(reqs,
		Request{Key: Metadata, Part: Conn, Use: "partitions of the input topic, partition leaders", conn: []int16{1, 6}},
		Request{Key: FindCoordinator, Part: Conn, Use: "the consumer group's coordinator", conn: []int16{0}},
		Request{Key: JoinGroup, Part: Conn, Use: "joining the consumer group", conn: []int16{1, 2}},
		Request{Key: SyncGroup, Part: Conn, Use: "partition assignment", conn: []int16{0}},
		Request{Key: OffsetFetch, Part: Conn, Use: "the group's committed offsets", conn: []int16{1}},
		Request{Key: ListOffsets, Part: Conn, Use: "first offset of a partition with no commit", conn: []int16{1}},
		Request{Key: Heartbeat, Part: Conn, Use: "group membership", conn: []int16{0}},
		Request{Key: Fetch, Part: Conn, Use: "reading the input", conn: []int16{2, 5, 10}},
		Request{Key: Metadata, Part: Transport, Use: "the writer's topic metadata"},
		Request{Key: Produce, Part: Transport, Use: "output, duplicates and dead-letter records"},
		Request{Key: OffsetCommit, Part: Conn, Use: "committing input offsets", conn: []int16{2}},
		Request{Key: ListOffsets, Part: Transport, Use: "consumer-lag sampling (and the sharded front's answer offsets)"},
		Request{Key: FindCoordinator, Part: Transport, Use: "the coordinator for lag sampling's OffsetFetch"},
		Request{Key: OffsetFetch, Part: Transport, Use: "consumer-lag sampling"},
		Request{Key: LeaveGroup, Part: Conn, Use: "leaving the group at a stop", conn: []int16{0}},
	)
}

// Sends is the range of versions kafka-go may send for r, whatever the broker.
func (r Request) Sends() Range {
	if r.conn != nil {
		return Range{r.conn[0], r.conn[len(r.conn)-1]}
	}
	k := protocol.ApiKey(r.Key)
	return Range{k.MinVersion(), k.MaxVersion()}
}

// Versions says in words which versions kafka-go sends for r: the list a
// kafka.Conn picks from, or a kafka.Transport's range.
func (r Request) Versions() string {
	if r.conn == nil {
		return r.Sends().String() + " (≤ broker max)"
	}
	s := fmt.Sprintf("v%d", r.conn[0])
	for i, v := range r.conn[1:] {
		sep := ", "
		if i == len(r.conn)-2 {
			sep = " or "
		}
		s += fmt.Sprintf("%sv%d", sep, v)
	}
	return s
}

// Pick is the version kafka-go sends to a broker that accepts b, or -1 when a
// kafka.Conn has no listed version at or below the broker's maximum (it then
// fails with "no matching versions were found").
func (r Request) Pick(b Range) int16 {
	if r.conn == nil {
		return protocol.ApiKey(r.Key).SelectVersion(b.Min, b.Max)
	}
	for i := len(r.conn) - 1; i >= 0; i-- {
		if r.conn[i] <= b.Max {
			return r.conn[i]
		}
	}
	return -1
}
