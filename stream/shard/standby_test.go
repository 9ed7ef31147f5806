package shard

import (
	"testing"

	"github.com/segmentio/kafka-go"
)

// TestWarmBalancer checks the index group's assignor with standbys: each
// shard goes to the member whose copy is furthest along, its standby to
// another member, and no member carries more than its share.
func TestWarmBalancer(t *testing.T) {
	held := func(at map[int]int64) []byte {
		var p positions
		for s, n := range at {
			p.set(s, n)
		}
		return p.encode()
	}
	members := []kafka.GroupMember{
		{ID: "c", UserData: held(map[int]int64{0: 50, 1: 90})},
		{ID: "a", UserData: held(map[int]int64{0: 100, 2: 7})},
		{ID: "b", UserData: nil},
	}
	var parts []kafka.Partition
	for s := range 6 {
		parts = append(parts, kafka.Partition{Topic: "g.probes", ID: s}, kafka.Partition{Topic: "g.standbys", ID: s})
	}
	b := warmBalancer{probes: "g.probes", standbys: "g.standbys", replicas: 1, local: &positions{}}
	out := b.AssignGroups(members, parts)
	owner, standby := map[int]string{}, map[int]string{}
	for id, topics := range out {
		if n := len(topics["g.probes"]); n > 2 {
			t.Errorf("%s owns %d of 6 shards over 3 members", id, n)
		}
		for _, s := range topics["g.probes"] {
			owner[s] = id
		}
		for _, s := range topics["g.standbys"] {
			standby[s] = id
		}
	}
	if owner[0] != "a" || owner[1] != "c" || owner[2] != "a" {
		t.Errorf("owners %v: want shard 0 and 2 on a, 1 on c (the furthest copies)", owner)
	}
	for s := range 6 {
		if owner[s] == "" || standby[s] == "" || owner[s] == standby[s] {
			t.Errorf("shard %d: owner %q, standby %q", s, owner[s], standby[s])
		}
	}
	if standby[0] != "c" {
		t.Errorf("shard 0's standby is %q, want c (the next furthest copy)", standby[0])
	}
}
