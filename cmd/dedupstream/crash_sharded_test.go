package main

import (
	"context"
	"flag"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream/embedded"
)

var shardedKills = flag.Int("sharded-kills", 0, "TestSIGKILLSharded: SIGKILLs of instances (0: the CI default, shardedKillsCI)")

const (
	shardedKillsCI   = 12 // about 40 s on the shared 2-core machine
	shardedInstances = 3
	shardedShards    = 8
)

// TestSIGKILLSharded is the crash harness in sharded mode: three "dedupstream
// run --index-shards 8" processes, the broker in a process of its own, and
// again and again one instance SIGKILLed at a random moment while new pages
// arrive, then restarted on its state directory; halfway, a fourth instance
// joins (scale-up). Then every instance is stopped with SIGTERM once the group
// has committed the whole input, and the topics are checked against
// DESIGN.md's contracts as for one instance (crashRun.check): every input
// record has an outcome, all outcomes of one record agree, duplicates point
// to earlier pages, every cluster keeps a member forwarded as unique. Shards
// must have moved: some instance rebuilt a shard from the sequence log that
// another had answered for before.
func TestSIGKILLSharded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills its instances")
	}
	t.Parallel()
	kills := *shardedKills
	if kills == 0 {
		kills = shardedKillsCI
	}
	c := newCrashRun(t)
	c.addr = brokerProc(t, c.bin, 4)
	fleet := &shardedFleet{c: c}
	for range shardedInstances {
		fleet.start(t.TempDir())
	}
	start := time.Now()
	for i := range kills {
		c.produce(pagesPerRun)
		fleet.killOne(time.Duration(c.rng.Int64N(int64(1500 * time.Millisecond))))
		if i == kills/2 {
			fleet.start(t.TempDir()) // scale-up: a fourth member
		}
	}
	killed := time.Since(start)
	fleet.waitDrained(3 * time.Minute)
	waitAllReady(t, fleet.procs, time.Minute) // a just-restarted one handles SIGTERM once up
	rebuilt := 0
	for _, p := range fleet.procs {
		stopProc(t, p)
		rebuilt += rebuilds(p)
	}
	for _, p := range fleet.dead {
		rebuilt += rebuilds(p)
	}
	r := c.check()
	t.Logf("%d instances, %d kills in %s; records checked: %d (%d dead letters); outputs read: %d (%d replays); records lost: %d; clusters kept: %d of %d; shards rebuilt from the log: %d",
		len(fleet.procs), kills, killed.Round(time.Second), r.records, len(c.bad), r.outputs, r.replays, r.lost, r.kept, r.clusters, rebuilt)
	if rebuilt == 0 {
		t.Errorf("no instance rebuilt a shard another had served: the kills did not move shards")
	}
}

// shardedFleet is the running instances of a sharded crash run.
type shardedFleet struct {
	c     *crashRun
	procs []*proc  // running, by slot
	dirs  []string // state directory of each slot
	dead  []*proc  // killed processes, for their logs
}

func (f *shardedFleet) env(dir string) []string {
	return filterEnv(f.c.addr, dir,
		"DEDUPSTREAM_KAFKA_GROUP="+crashGroup,
		"DEDUPSTREAM_KAFKA_SESSION_TIMEOUT="+crashSessions.String(),
		"DEDUPSTREAM_BATCH_SIZE="+strconv.Itoa(crashBatch),
		"DEDUPSTREAM_BATCH_LINGER=5ms",
		"DEDUPSTREAM_INDEX_SHARDS="+strconv.Itoa(shardedShards),
		"DEDUPSTREAM_INDEX_MEMTABLE_BYTES=4194304",
		"DEDUPSTREAM_LOG_LEVEL=info",
	)
}

func (f *shardedFleet) start(dir string) {
	f.procs = append(f.procs, startProc(f.c.t, f.c.bin, f.env(dir), "run"))
	f.dirs = append(f.dirs, dir)
}

// killOne SIGKILLs a random instance after d and restarts it on its state.
func (f *shardedFleet) killOne(d time.Duration) {
	c := f.c
	i := c.rng.IntN(len(f.procs))
	p := f.procs[i]
	if p.wait(d) {
		c.t.Fatalf("instance %d exited (%v) before its SIGKILL:\n%s", i, p.err, tail(p.out.String(), 4000))
	}
	p.kill()
	if !p.signalled(syscall.SIGKILL) {
		c.t.Fatalf("instance %d was not ended by SIGKILL (%v)", i, p.err)
	}
	f.dead = append(f.dead, p)
	f.procs[i] = startProc(c.t, c.bin, f.env(f.dirs[i]), "run")
}

// waitDrained waits until the group has committed the whole input, and on
// failure shows what each running instance logged last.
func (f *shardedFleet) waitDrained(d time.Duration) {
	t := f.c.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		lag, err := embedded.GroupLag(ctx, f.c.addr, crashGroup, "pages")
		if err == nil && lag == 0 {
			return
		}
		if ctx.Err() != nil {
			for i, p := range f.procs {
				t.Logf("instance %d:\n%s", i, tail(p.out.String(), 6000))
			}
			t.Fatalf("group %s still %d records behind after %s (%v)", crashGroup, lag, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rebuilds counts the shards a process opened with no local copy after some
// instance had answered for them (the group had committed probe offsets).
func rebuilds(p *proc) int {
	n := 0
	for _, line := range strings.Split(p.out.String(), "\n") {
		if strings.Contains(line, `"msg":"shard opened"`) && strings.Contains(line, `"replay_from":-2`) &&
			!strings.Contains(line, `"answer_from":0}`) {
			n++
		}
	}
	return n
}
