package main

import (
	"context"
	"errors"
	"flag"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/realkafka"
)

var (
	shardedKills   = flag.Int("sharded-kills", 0, "TestSIGKILLSharded: SIGKILLs of instances (0: the CI default, shardedKillsCI)")
	shardedSession = flag.Duration("sharded-session-timeout", crashSessions, "TestSIGKILLSharded: kafka.session_timeout of the instances")
	shardedRestart = flag.Duration("sharded-restart-after", 0, "TestSIGKILLSharded: wait this long after a SIGKILL before the restart (pages keep arriving meanwhile)")
	shardedPages   = flag.Int("sharded-pages", pagesPerRun, "TestSIGKILLSharded: pages produced before each kill")
	shardedDrain   = flag.Duration("sharded-drain", 3*time.Minute, "TestSIGKILLSharded: the bound on draining the input after the last kill; past it the run has stalled")
	shardedDown    = flag.Bool("sharded-scale-down", false, "TestSIGKILLSharded: at three quarters of the kills, stop one instance for good (SIGTERM)")
	shardedLog     = flag.String("sharded-log-level", "info", "TestSIGKILLSharded: log.level of the instances (debug logs every shard answer and every joined decision; with -keep-logs)")
	shardedKafka   = flag.Bool("sharded-real-kafka", false, "TestSIGKILLSharded: run against a real Kafka 2.4.0 broker of its own (../shared/kafka-2.4.0) instead of the embedded one")
)

const (
	shardedKillsCI   = 12 // about 40 s on the shared 2-core machine
	shardedInstances = 3
	shardedShards    = 8
)

// TestSIGKILLSharded is the crash harness in sharded mode: three "dedupstream
// run --index-shards 8" processes, the broker in a process of its own, and
// again and again one instance SIGKILLed at a random moment while it works
// through a burst of new pages (midway), then restarted on its state directory; halfway, a fourth instance
// joins (scale-up), and with -sharded-scale-down at three quarters one
// leaves with SIGTERM for good. Then every instance is stopped with SIGTERM once the group
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
	c.addr = shardedBroker(t, c.bin)
	fleet := &shardedFleet{c: c}
	for range shardedInstances {
		fleet.start(t.TempDir())
	}
	start := time.Now()
	for i := range kills {
		c.produce(*shardedPages)
		fleet.midway(*shardedSession + 15*time.Second) // through the rebalance the last restart began
		fleet.killOne(0)
		switch i {
		case kills / 2:
			fleet.start(t.TempDir()) // scale-up: a fourth member
		case 3 * kills / 4:
			if *shardedDown {
				fleet.stopOne() // scale-down: one leaves for good
			}
		}
	}
	killed := time.Since(start)
	fleet.waitDrained(*shardedDrain)
	drained := time.Since(start) - killed
	waitAllReady(t, fleet.procs, time.Minute) // a just-restarted one handles SIGTERM once up
	rebuilt, unsettled := 0, 0
	for _, p := range fleet.procs {
		stopProc(t, p)
	}
	for _, p := range append(fleet.dead, fleet.procs...) {
		rebuilt += rebuilds(p)
		unsettled += strings.Count(p.out.String(), "never settled by their fronts")
	}
	r := c.check()
	t.Logf("%d instances, %d kills in %s, drained %s after the last; records checked: %d (%d dead letters); outputs read: %d (%d replays); records lost: %d; clusters kept: %d of %d; shards rebuilt from the log: %d",
		len(fleet.procs), kills, killed.Round(time.Second), drained.Round(100*time.Millisecond), r.records, len(c.bad), r.outputs, r.replays, r.lost, r.kept, r.clusters, rebuilt)
	if unsettled > 0 { // each waited settleExpiry: a stall of minutes
		for i, p := range append(fleet.dead, fleet.procs...) {
			if out := p.out.String(); strings.Contains(out, "never settled") {
				t.Logf("process %d:\n%s", i, tail(out, 20000))
			}
		}
		t.Errorf("%d times a shard gave up waiting for a document's final", unsettled)
	}
	// Restarted before its session ends, an instance mostly gets its own
	// shards back, warm (the sticky assignor): only the CI setting, which
	// restarts after it, must have moved shards.
	if rebuilt == 0 && *shardedRestart == 0 {
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
		"DEDUPSTREAM_KAFKA_SESSION_TIMEOUT="+shardedSession.String(),
		"DEDUPSTREAM_KAFKA_CREATE_TOPICS=true",
		"DEDUPSTREAM_BATCH_SIZE="+strconv.Itoa(crashBatch),
		"DEDUPSTREAM_BATCH_LINGER=5ms",
		"DEDUPSTREAM_INDEX_SHARDS="+strconv.Itoa(shardedShards),
		"DEDUPSTREAM_INDEX_MEMTABLE_BYTES=4194304",
		"DEDUPSTREAM_LOG_LEVEL="+*shardedLog,
	)
}

func (f *shardedFleet) start(dir string) {
	f.procs = append(f.procs, startProc(f.c.t, f.c.bin, f.env(dir), "run"))
	f.dirs = append(f.dirs, dir)
}

// midway waits, at most max, until the group has committed a random part of
// the records outstanding now: a kill then finds the fleet amid a burst, with
// records emitted and not yet committed, rather than idle after it (a fleet
// that takes a burst in a tenth of a second is idle at most random moments)
// or still waiting for the group to rebalance (which, with a dead member,
// lasts its session timeout).
func (f *shardedFleet) midway(max time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), max)
	defer cancel()
	outstanding, err := embedded.GroupLag(ctx, f.c.addr, crashGroup, "pages")
	if err != nil {
		return
	}
	left := outstanding - f.c.rng.Int64N(outstanding+1)
	for ctx.Err() == nil {
		if lag, err := embedded.GroupLag(ctx, f.c.addr, crashGroup, "pages"); err == nil && lag <= left {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
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
	if *shardedRestart > 0 { // as an orchestrator does: back before the old member's session ends
		c.produce(*shardedPages)
		time.Sleep(*shardedRestart)
	}
	f.procs[i] = startProc(c.t, c.bin, f.env(f.dirs[i]), "run")
}

// stopOne stops a random instance with SIGTERM, as a scale-down does, and
// does not restart it.
func (f *shardedFleet) stopOne() {
	c := f.c
	i := c.rng.IntN(len(f.procs))
	p := f.procs[i]
	waitAllReady(c.t, []*proc{p}, time.Minute) // it handles SIGTERM once up
	stopProc(c.t, p)
	f.dead = append(f.dead, p)
	f.procs = slices.Delete(f.procs, i, i+1)
	f.dirs = slices.Delete(f.dirs, i, i+1)
}

// shardedBroker starts the broker of a sharded crash run: the embedded one
// in a process of its own, or with -sharded-real-kafka a Kafka 2.4.0 broker
// of the run's own, and returns its address. The input has 4 partitions.
func shardedBroker(t *testing.T, bin string) string {
	t.Helper()
	if !*shardedKafka {
		return brokerProc(t, bin, 4)
	}
	b, err := realkafka.Start(t.TempDir())
	if errors.Is(err, realkafka.ErrAbsent) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.CreateTopic(ctx, "pages", 4); err != nil {
		t.Fatal(err)
	}
	return b.Addr()
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
