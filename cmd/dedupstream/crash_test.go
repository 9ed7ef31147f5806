package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

var (
	crashKills = flag.Int("kills", 0, "TestSIGKILLCrashes: SIGKILLs to survive (0: the CI default, crashKillsCI)")
	crashSoak  = flag.Duration("soak", 0, "TestSIGKILLCrashes: keep killing for this long (overrides -kills)")
	crashSeed  = flag.Uint64("crash-seed", 1, "TestSIGKILLCrashes: seed of the pages and of the kill schedule")
)

const (
	crashKillsCI  = 100 // about a minute on the shared 2-core machine (RELIABILITY.md)
	crashGroup    = "crash"
	pagesPerRun   = 40 // new input before each start: ~3 batches of crashBatch
	crashBatch    = 16
	crashPoints   = 2 // a crash point is hit at the 1st or 2nd batch through its stage
	crashSessions = 400 * time.Millisecond
)

// TestSIGKILLCrashes runs "dedupstream run" as a real process against an
// embedded broker and kills it with SIGKILL again and again on the same state
// directory — at a crash point of the pipeline (DEDUPSTREAM_CRASH_POINT: after
// fetch, decide, stage, emit, publish or commit), at a random time (start-up,
// group join, Badger's own work), or during "dedupstream state compact" —
// producing new generated pages with known near-duplicate clusters before each
// start. Then it runs the filter to the end, stops it with SIGTERM and checks
// the contracts of DESIGN.md on what the topics hold: every input record has
// an outcome, all outcomes of one record agree (verdict, dedup.of, cluster,
// similarity), every cluster keeps a member forwarded as unique, and the
// state opens ("state stats"). -kills N or -soak DUR run it longer.
func TestSIGKILLCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the binary many times")
	}
	t.Parallel()
	c := newCrashRun(t)
	kills := *crashKills
	if kills == 0 {
		kills = crashKillsCI
	}
	start := time.Now()
	for i := 0; ; i++ {
		if *crashSoak > 0 && time.Since(start) >= *crashSoak || *crashSoak == 0 && i >= kills {
			break
		}
		c.produce(pagesPerRun)
		c.killOnce()
		if (i+1)%50 == 0 {
			t.Logf("%d kills in %s: %v", i+1, time.Since(start).Round(time.Second), c.tally)
		}
	}
	killed := time.Since(start)
	c.finish()
	r := c.check()
	t.Logf("kills survived: %d in %s (%s); records checked: %d (%d dead letters); outputs read: %d (%d replays); records lost: %d; clusters kept: %d of %d",
		c.kills(), killed.Round(time.Second), c.tallyString(), r.records, len(c.bad), r.outputs, r.replays, r.lost, r.kept, r.clusters)
}

// crashRun is one harness run: the broker, the binary, the pages produced.
type crashRun struct {
	t     *testing.T
	bin   string
	addr  string
	dir   string
	rng   *rand.Rand
	gen   *gen.Generator
	pages map[string]gen.Page
	order []string
	bad   map[string]bool
	tally map[string]int // kills by where they landed
	last  string         // the previous kill, for the failure message
}

func newCrashRun(t *testing.T) *crashRun {
	bin := buildCrashBinary(t)
	return &crashRun{
		t: t, bin: bin, addr: processBroker(t, bin), dir: t.TempDir(),
		rng:   rand.New(rand.NewPCG(*crashSeed, 0x6b696c6c)),
		gen:   gen.New(gen.Options{Seed: *crashSeed, CopyRate: 0.4}),
		pages: make(map[string]gen.Page), bad: make(map[string]bool), tally: make(map[string]int),
	}
}

func (c *crashRun) env(extra ...string) []string {
	return filterEnv(c.addr, c.dir, append([]string{
		"DEDUPSTREAM_KAFKA_GROUP=" + crashGroup,
		"DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=" + crashSessions.String(),
		"DEDUPSTREAM_BATCH_SIZE=" + strconv.Itoa(crashBatch),
		"DEDUPSTREAM_BATCH_LINGER=5ms",
		"DEDUPSTREAM_STATE_GC_INTERVAL=100ms", // value-log GC runs while it is killed
	}, extra...)...)
}

// produce writes n new generated pages, and now and then an invalid record.
func (c *crashRun) produce(n int) {
	msgs := make([]kafka.Message, 0, n+1)
	for range n {
		p := c.gen.Next()
		v, err := eval.PageRecord(p)
		if err != nil {
			c.t.Fatal(err)
		}
		c.pages[p.ID], c.order = p, append(c.order, p.ID)
		msgs = append(msgs, kafka.Message{Key: []byte(p.ID), Value: v})
	}
	if c.rng.IntN(5) == 0 {
		key := "bad-" + strconv.Itoa(len(c.bad))
		c.bad[key] = true
		msgs = append(msgs, kafka.Message{Key: []byte(key), Value: []byte("\xe9\x9c\xc3\xb1\xd2\x8b\xfa au lait")}) // in no encoding
	}
	if err := produce(context.Background(), c.addr, "pages", msgs); err != nil {
		c.t.Fatal(err)
	}
}

// killOnce starts one process and SIGKILLs it somewhere.
func (c *crashRun) killOnce() {
	switch r := c.rng.IntN(10); {
	case r < 6:
		stages := stream.BatchStages()
		c.killAtPoint(stages[c.rng.IntN(len(stages))], 1+c.rng.IntN(crashPoints))
	case r < 9:
		c.killAfter(time.Duration(c.rng.Int64N(int64(1500 * time.Millisecond))))
	default:
		c.killCompaction(time.Duration(c.rng.Int64N(int64(20 * time.Millisecond))))
	}
}

// killAtPoint runs the filter with a crash point; if the input runs out before
// the point is reached, it kills the caught-up filter from outside.
func (c *crashRun) killAtPoint(stage string, n int) {
	point := fmt.Sprintf("%s:%d", stage, n)
	p := startProc(c.t, c.bin, c.env(crashPointEnv+"="+point), "run")
	deadline := time.Now().Add(crashPointWait)
	for !p.wait(50 * time.Millisecond) {
		lag, err := embedded.GroupLag(context.Background(), c.addr, crashGroup, "pages")
		if err == nil && lag == 0 {
			p.kill()
			c.tally["caught-up"]++
			c.last = "caught up, crash point " + point + " not reached"
			return
		}
		if time.Now().After(deadline) {
			p.kill()
			c.t.Fatalf("crash point %s: the filter neither reached it nor caught up in %s (lag %d, %v); previous kill: %s; its output:\n%s",
				point, crashPointWait, lag, err, c.last, tail(p.out.String(), 4000))
		}
	}
	c.mustBeKilled(p, "crash point "+point)
	c.tally[stage]++
	c.last = "crash point " + point
}

// crashPointWait bounds the wait for a filter to reach its crash point or
// catch up: a filter that does neither has stalled, which fails the test
// rather than hang it.
const crashPointWait = 3 * time.Minute

// killAfter runs the filter and kills it after d.
func (c *crashRun) killAfter(d time.Duration) {
	p := startProc(c.t, c.bin, c.env(), "run")
	if p.wait(d) {
		c.mustBeKilled(p, "a SIGKILL after "+d.String())
	}
	p.kill()
	c.tally["timer"]++
	c.last = "run, SIGKILL after " + d.String()
}

// killCompaction runs "state compact" and kills it d after it starts compacting.
func (c *crashRun) killCompaction(d time.Duration) {
	p := startProc(c.t, c.bin, c.env(), "state", "compact", "--state", c.dir)
	if !p.waitOutput("compacting", 30*time.Second) {
		p.kill()
		c.t.Fatalf("state compact did not start compacting:\n%s", p.out.String())
	}
	if p.wait(d) {
		if p.exitCode() != 0 {
			c.t.Fatalf("state compact exited with %d:\n%s", p.exitCode(), p.out.String())
		}
		c.tally["compact-finished"]++ // finished before the kill: no kill
		return
	}
	p.kill()
	c.tally["compact"]++
	c.last = "state compact, SIGKILL " + d.String() + " into compacting"
}

// mustBeKilled fails unless the exited process was SIGKILLed after writing want.
func (c *crashRun) mustBeKilled(p *proc, want string) {
	c.t.Helper()
	if !p.signalled(syscall.SIGKILL) || !strings.Contains(p.out.String(), want) {
		c.t.Fatalf("filter exited (%v) before %s (previous kill: %s):\n%s", p.err, want, c.last, p.out.String())
	}
}

func (c *crashRun) kills() int {
	n := 0
	for k, v := range c.tally {
		if k != "compact-finished" {
			n += v
		}
	}
	return n
}

func (c *crashRun) tallyString() string {
	keys := make([]string, 0, len(c.tally))
	for k := range c.tally {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, c.tally[k])
	}
	return b.String()
}

// finish runs the filter until the group has committed the whole input, stops
// it with SIGTERM, and opens the state with "state stats".
func (c *crashRun) finish() {
	p := startProc(c.t, c.bin, c.env("DEDUPSTREAM_LOG_LEVEL=info"), "run")
	// The last killed run may have committed everything: a SIGTERM sent
	// before the process has set up its signal handling would kill it.
	if !p.waitOutput(`"msg":"admin listening"`, time.Minute) {
		p.kill()
		c.t.Fatalf("the filter did not start:\n%s", p.out.String())
	}
	waitDrained(c.t, c.addr, crashGroup, "pages", 2*time.Minute)
	if err := p.signal(syscall.SIGTERM); err != nil {
		c.t.Fatal(err)
	}
	if !p.wait(30*time.Second) || p.exitCode() != 0 {
		p.kill()
		c.t.Fatalf("filter did not stop cleanly on SIGTERM (%v):\n%s", p.err, p.out.String())
	}
	s := startProc(c.t, c.bin, c.env(), "state", "stats", "--state", c.dir)
	if !s.wait(30*time.Second) || s.exitCode() != 0 || !strings.Contains(s.out.String(), "documents") {
		c.t.Fatalf("state stats after the kills (%v):\n%s", s.err, s.out.String())
	}
	c.t.Logf("%s", strings.TrimSpace(s.out.String()))
}
