package shard

import (
	"cmp"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/segmentio/kafka-go"
)

// StandbysTopic names the topic whose partitions stand for standby slots:
// shard s's standby replicas are the members assigned its partition s. It is
// created with S partitions and never written; Kafka's group protocol carries
// the assignment, as Kafka Streams' assignor carries standby tasks.
func StandbysTopic(group string) string { return group + ".standbys" }

// positions are the sequence-log positions of the shard stores this instance
// holds, which it reports when it joins the index group so that the leader
// gives each shard to a member with a warm copy.
type positions struct {
	mu sync.Mutex
	at map[int]int64 // shard → next offset applied locally
}

func (p *positions) set(shard int, next int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.at == nil {
		p.at = make(map[int]int64)
	}
	p.at[shard] = next
}

func (p *positions) encode() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b []byte
	for s, at := range p.at {
		b = binary.AppendUvarint(binary.AppendUvarint(b, uint64(s)), uint64(at+1))
	}
	return b
}

// positionFile is where the sequence-log position of shard s's store is noted
// beside it, so that a restarted instance reports the copies it holds on
// disk and the index group gives them back to it (sticky across restarts).
func positionFile(stateDir string, s int) string { return ShardDir(stateDir, s) + ".position" }

// save notes shard s's position for the next start. A position behind the
// store's (a crash since) still names a warm copy; the store's own applied
// offset, not this note, is where its replay starts.
func (p *positions) save(stateDir string, s int) {
	p.mu.Lock()
	at, ok := p.at[s]
	p.mu.Unlock()
	if ok {
		_ = os.WriteFile(positionFile(stateDir, s), strconv.AppendInt(nil, at, 10), 0o644)
	}
}

// load reads the positions noted for the shard stores under stateDir that
// still exist.
func (p *positions) load(stateDir string) {
	files, _ := filepath.Glob(filepath.Join(stateDir, "shards", "*.position"))
	for _, f := range files {
		s, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".position"))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(f)
		at, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if fi, serr := os.Stat(ShardDir(stateDir, s)); err != nil || perr != nil || serr != nil || !fi.IsDir() {
			continue
		}
		p.set(s, at)
	}
}

func decodePositions(b []byte) map[int]int64 {
	at := make(map[int]int64)
	for len(b) > 0 {
		s, n := binary.Uvarint(b)
		if n <= 0 {
			return at
		}
		pos, m := binary.Uvarint(b[n:])
		if m <= 0 {
			return at
		}
		at[int(s)], b = int64(pos)-1, b[n+m:]
	}
	return at
}

// warmBalancer is the index group's assignor: it gives each shard to the
// member whose local copy is furthest along (so a shard stays where it is
// across a rebalance, and a failed owner's warm standby takes over without a
// rebuild), and with standbys each shard `standbys` more members as
// standbys, keeping every member's load within one of the mean. A member
// reports the copies it holds: those it has opened since it started and
// those a previous run left on disk (positionFile).
type warmBalancer struct {
	shards, standbys string
	replicas         int
	local            *positions
}

func (b warmBalancer) ProtocolName() string      { return "dedupstream-warm-v1" }
func (b warmBalancer) UserData() ([]byte, error) { return b.local.encode(), nil }

func (b warmBalancer) AssignGroups(members []kafka.GroupMember, partitions []kafka.Partition) kafka.GroupMemberAssignments {
	slices.SortFunc(members, func(x, y kafka.GroupMember) int { return compareStrings(x.ID, y.ID) })
	held := make([]map[int]int64, len(members))
	for i, m := range members {
		held[i] = decodePositions(m.UserData)
	}
	var shards []int
	for _, p := range partitions {
		if p.Topic == b.shards {
			shards = append(shards, p.ID)
		}
	}
	slices.Sort(shards)
	out := make(kafka.GroupMemberAssignments, len(members))
	for _, m := range members {
		out[m.ID] = map[string][]int{}
	}
	owner := place(shards, members, held, nil, 1, func(i, s int) { out[members[i].ID][b.shards] = append(out[members[i].ID][b.shards], s) })
	if b.replicas > 0 && len(members) > 1 {
		place(shards, members, held, owner, min(b.replicas, len(members)-1), func(i, s int) {
			out[members[i].ID][b.standbys] = append(out[members[i].ID][b.standbys], s)
		})
	}
	return out
}

// place gives each shard n members, never one in exclude[shard], and no
// member more than ceil(n·shards/members). Copies first: in pass r, each
// shard still short of members takes its r-th furthest copy's holder if that
// member has room — shards with the fewest copies choosing first, so a
// member's room goes to the shards that have nowhere else to go warm. Only
// then does a shard go cold, to the least loaded member (then the first by
// ID). It returns one chosen member per shard (the first).
func place(shards []int, members []kafka.GroupMember, held []map[int]int64, exclude map[int]int, n int, assign func(member, shard int)) map[int]int {
	limit := (n*len(shards) + len(members) - 1) / len(members)
	load := make([]int, len(members))
	first := make(map[int]int, len(shards))
	taken := make(map[int]map[int]bool, len(shards))
	excluded := func(s, i int) bool { e, ok := exclude[s]; return ok && e == i }
	give := func(i, s int) {
		if taken[s] == nil {
			taken[s] = map[int]bool{}
		}
		taken[s][i], load[i] = true, load[i]+1
		if _, ok := first[s]; !ok {
			first[s] = i
		}
		assign(i, s)
	}
	copies := make(map[int][]int, len(shards)) // shard → holders, furthest first
	for _, s := range shards {
		for i := range members {
			if _, ok := held[i][s]; ok && !excluded(s, i) {
				copies[s] = append(copies[s], i)
			}
		}
		slices.SortStableFunc(copies[s], func(x, y int) int { return cmp.Compare(held[y][s], held[x][s]) })
	}
	byCopies := slices.Clone(shards)
	slices.SortStableFunc(byCopies, func(x, y int) int { return cmp.Compare(len(copies[x]), len(copies[y])) })
	for r := 0; r < len(members); r++ {
		for _, s := range byCopies {
			if r < len(copies[s]) && len(taken[s]) < n {
				if i := copies[s][r]; load[i] < limit {
					give(i, s)
				}
			}
		}
	}
	for _, s := range shards {
		for len(taken[s]) < n {
			best := -1
			for i := range members {
				if taken[s][i] || excluded(s, i) || load[i] >= limit {
					continue
				}
				if best < 0 || load[i] < load[best] {
					best = i
				}
			}
			if best < 0 {
				break
			}
			give(best, s)
		}
	}
	return first
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
