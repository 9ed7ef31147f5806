// Package compat compares the Kafka API versions a broker accepts with the
// versions kafka-go sends for each request the filter makes, so that a broker
// too old, or one that removed a version kafka-go still sends (Kafka 4.0,
// KIP-896), stops the start with a message instead of a retry loop. Its
// functions and values are safe for concurrent use.
//
// kafka-go chooses a request's version in one of two ways, and the filter uses
// both. A kafka.Conn — every kafka.Reader, consumer groups, kafka.Dialer —
// sends fixed versions for most requests and picks among a short list for a
// few (conn.go: the highest listed version at or below the broker's maximum;
// it never looks at the broker's minimum). A kafka.Transport — kafka.Writer
// and kafka.Client — sends the lower of kafka-go's and the broker's maximum
// (protocol.ApiKey.SelectVersion). Requests lists, for the kafka-go release
// named by KafkaGo, which requests go through which part.
package compat
