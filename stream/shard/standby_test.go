package shard

import (
	"maps"
	"os"
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
		parts = append(parts, kafka.Partition{Topic: "g.shards", ID: s}, kafka.Partition{Topic: "g.standbys", ID: s})
	}
	b := warmBalancer{shards: "g.shards", standbys: "g.standbys", replicas: 1, local: &positions{}}
	out := b.AssignGroups(members, parts)
	owner, standby := map[int]string{}, map[int]string{}
	for id, topics := range out {
		if n := len(topics["g.shards"]); n > 2 {
			t.Errorf("%s owns %d of 6 shards over 3 members", id, n)
		}
		for _, s := range topics["g.shards"] {
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

// TestWarmBalancerFailover is the assignment after one of three members
// dies with standbys 1: the survivors hold, between them, a copy of every
// shard, but one holds more than its share. The shards with a single copy
// must choose first, so that every shard moves to a member holding it and
// none is rebuilt from the log — a greedy pass in shard order gave shard 4
// to the full member's neighbour, cold.
func TestWarmBalancerFailover(t *testing.T) {
	held := func(owned, standby []int) []byte {
		var p positions
		for _, s := range owned {
			p.set(s, 1010) // an owner is ahead of its standby
		}
		for _, s := range standby {
			p.set(s, 1000)
		}
		return p.encode()
	}
	members := []kafka.GroupMember{
		{ID: "a", UserData: held([]int{0, 1, 2}, []int{3, 4})}, // standby of the dead member's 3 and 4
		{ID: "b", UserData: held([]int{6, 7}, []int{5, 0, 1})}, // standby of the dead member's 5, and of 0 and 1
	}
	var parts []kafka.Partition
	for s := range 8 {
		parts = append(parts, kafka.Partition{Topic: "g.shards", ID: s}, kafka.Partition{Topic: "g.standbys", ID: s})
	}
	b := warmBalancer{shards: "g.shards", standbys: "g.standbys", replicas: 1, local: &positions{}}
	out := b.AssignGroups(members, parts)
	copies := map[string]map[int]bool{"a": {0: true, 1: true, 2: true, 3: true, 4: true}, "b": {5: true, 6: true, 7: true, 0: true, 1: true}}
	cold := 0
	for id, topics := range out {
		if n := len(topics["g.shards"]); n != 4 {
			t.Errorf("%s owns %d of 8 shards, want 4", id, n)
		}
		for _, s := range topics["g.shards"] {
			if !copies[id][s] {
				cold++
			}
		}
	}
	if cold != 0 {
		t.Errorf("%d shards given to a member without a copy, want 0: %v", cold, out)
	}
}

// TestPositionsSurviveARestart: the positions a run noted beside its shard
// stores are what the next run reports, for the stores still on disk only.
func TestPositionsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	var before positions
	for s, at := range map[int]int64{0: 120, 3: 7, 5: 99} {
		if err := os.MkdirAll(ShardDir(dir, s), 0o755); err != nil {
			t.Fatal(err)
		}
		before.set(s, at)
		before.save(dir, s)
	}
	if err := os.RemoveAll(ShardDir(dir, 5)); err != nil { // an operator removed that store
		t.Fatal(err)
	}
	var after positions
	after.load(dir)
	if got := decodePositions(after.encode()); !maps.Equal(got, map[int]int64{0: 120, 3: 7}) {
		t.Errorf("positions after a restart: %v, want shards 0 and 3 at 120 and 7", got)
	}
}
