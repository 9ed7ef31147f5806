// Package floor is a Kafka-protocol shim for tests: wrapped around the
// embedded broker's listener, it refuses every request whose version is below
// a floor, as a Kafka 4.0 broker refuses the versions KIP-896 removed, and
// raises the minimum versions the broker advertises to match. It records
// every request version it sees. A Shim is safe for concurrent use.
//
// A refused request gets what a Kafka broker gives a request version it
// cannot parse: the connection is closed without an answer. The shim reads
// plaintext Kafka frames, so it needs a broker without TLS (kfake puts TLS
// above the listener WrapListener wraps, where the shim would see ciphertext),
// and it cannot follow SASL after SaslHandshake v0, whose authentication
// bytes are unframed (kfake accepts only v1).
package floor

import (
	"maps"
	"slices"
	"sync"
)

// Kafka40 is the floor of a Kafka 4.0.0 broker, API key → least version it
// accepts: KIP-896's removals as franz-go's kversion table for 4.0 lists them
// (pkg/kversion, release b40), plus Produce v0–v2, which KIP-896 removed but
// 4.0 still advertises (kversion keeps its minimum at 0); the shim refuses
// them. 4.0.1 and 4.1 accept JoinGroup v0–v1 again (KAFKA-19444).
func Kafka40() map[int16]int16 {
	return map[int16]int16{
		0:  3, // Produce
		1:  4, // Fetch
		2:  1, // ListOffsets
		8:  2, // OffsetCommit
		9:  1, // OffsetFetch
		11: 2, // JoinGroup
		19: 2, // CreateTopics
		20: 1, // DeleteTopics
		23: 2, // OffsetForLeaderEpoch
		27: 1, // WriteTxnMarkers
		29: 1, // DescribeAcls
		30: 1, // CreateAcls
		31: 1, // DeleteAcls
		32: 1, // DescribeConfigs
		34: 1, // AlterReplicaLogDirs
		35: 1, // DescribeLogDirs
		38: 1, // CreateDelegationToken
		39: 1, // RenewDelegationToken
		40: 1, // ExpireDelegationToken
		41: 1, // DescribeDelegationToken
	}
}

// Request is a request version the shim saw.
type Request struct{ Key, Version int16 }

// Shim refuses requests below its floor on the connections of the listeners
// it wraps.
type Shim struct {
	floor map[int16]int16

	mu      sync.Mutex
	seen    map[Request]bool
	refused []Request
}

// New returns a shim with floor (API key → least version accepted).
func New(floor map[int16]int16) *Shim {
	return &Shim{floor: maps.Clone(floor), seen: make(map[Request]bool)}
}

// Seen returns every request version received, refused ones included,
// sorted by key and version.
func (s *Shim) Seen() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Collect(maps.Keys(s.seen))
	slices.SortFunc(out, func(a, b Request) int { return int(a.Key-b.Key)*1000 + int(a.Version-b.Version) })
	return out
}

// Refused returns the requests refused so far, in order.
func (s *Shim) Refused() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refused)
}

// admit records r and reports whether the floor lets it through.
func (s *Shim) admit(r Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[r] = true
	if r.Version < s.floor[r.Key] {
		s.refused = append(s.refused, r)
		return false
	}
	return true
}
