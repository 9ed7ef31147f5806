package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/shard"
)

// FleetRun is one measured run of the filter as separate processes.
type FleetRun struct {
	Instances, Shards   int
	Pin                 int           // CPUs the instances were pinned to (taskset), 0: none
	Elapsed             time.Duration // from the first start until the group committed the whole input
	CPU                 time.Duration // user + system CPU of every instance, summed
	MaxRSS              int64         // the largest instance's peak RSS
	MaxAnon             int64         // the largest instance's peak RssAnon (sampled), 0: unknown
	StateBytes          int64         // every instance's state directory, summed
	SequenceB, AnswersB int64         // key + value bytes written to the internal topics
	Balance             float64       // postings (index keys routed) of the fullest shard over the mean (1: even)
	Records             int64
	Rebuild             time.Duration // a fresh instance's time to rebuild every shard from the sequence log; 0: not measured
	Failover            *Failover     // the last instance SIGKILLed after the run; nil: not measured
	// The latency mode, after the throughput run (nil: not measured): the
	// fleet's, the harness's floor measured once the fleet had stopped, and
	// every instance's CPU during the fleet's.
	Latency, Floor *LatencyRun
	LatencyCPU     time.Duration
	Settled        time.Duration // how long the fleet took to go idle before it
}

// FleetOptions say what RunFleet runs and measures.
type FleetOptions struct {
	Instances int // processes of one group
	Shards    int // their index.shards; 0: the single-instance index, for one instance
	Pin       int // recorded in FleetRun: the CPUs Command pins the instances to
	Docs      int // documents produced to Input before RunFleet
	// Partitions are the bench topics'.
	Partitions int
	// LatencyDocs, when positive, runs the latency mode on the fleet with
	// that many of Src's documents after Docs, at Rate (0: half the fleet's
	// throughput).
	LatencyDocs int
	Rate        float64
	Src         *Source
	Settle      bool // before the latency mode, wait until the fleet is idle
	Failover    bool // then SIGKILL the last instance and time until the others serve every shard
	Rebuild     bool // then time a fresh instance rebuilding every shard from the sequence log
	// Command returns instance i's process, a member of group keeping its
	// state in dir, reading Input and writing Output; with shardLog its log
	// must be JSON at info level on its stderr.
	Command func(i int, dir, group string, shardLog bool) *exec.Cmd
}

// RunFleet runs the filter as o.Instances processes of one group (o.Command)
// over the bench input already produced. It measures until the group has
// committed the whole input; with o.LatencyDocs, it then waits for the fleet
// to go idle and runs the latency mode on it, producing o.Src's next
// documents to the same input topic. Then it stops the instances with
// SIGTERM and reads their resource usage: their CPU up to the commit when
// the latency mode ran (the peak RSS covers it). The peak anonymous RSS is
// sampled until the latency mode ends.
func RunFleet(ctx context.Context, cl Cluster, o FleetOptions) (*FleetRun, error) {
	root, err := os.MkdirTemp("", "dedupstream-fleet-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	group := "bench-fleet-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	r := &FleetRun{Instances: o.Instances, Shards: o.Shards, Pin: o.Pin}
	start := time.Now()
	var procs []*fleetProc
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			<-p.done
		}
	}()
	procs, logs, err := startFleet(o, root, group)
	if err != nil {
		return nil, err
	}
	peakAnon := PeakChildAnon(pids(procs))
	defer peakAnon()
	if err := waitCommitted(ctx, cl, group, procs); err != nil {
		return nil, err
	}
	r.Elapsed = time.Since(start)
	cpuAtCommit, measured := fleetCPU(procs)
	docs, err := runFleetLatency(ctx, cl, o, procs, r, measured) // for the fleet's run and then the floor's
	if err != nil {
		return nil, err
	}
	if docs != nil {
		defer func() { _ = docs.Free() }()
	}
	r.MaxAnon = peakAnon()
	if o.Failover {
		if r.Failover, err = killOne(ctx, procs, logs, o.Shards); err != nil {
			return nil, err
		}
	}
	if err := stopFleet(procs); err != nil {
		return nil, err
	}
	r.addUsage(procs)
	if r.Latency != nil {
		r.CPU = cpuAtCommit
		if r.Floor, err = FloorLatency(ctx, cl, o.Partitions, docs); err != nil {
			return nil, fmt.Errorf("latency without a pipeline: %w", err)
		}
	}
	procs = nil
	r.StateBytes = DirSize(root)
	r.Records = int64(o.Docs)
	return r, shardFigures(ctx, cl, o, group, filepath.Join(root, "rebuild"), r)
}

// runFleetLatency, with o.LatencyDocs, encodes the latency mode's documents
// and runs it on the fleet (fleetLatency); measured says whether /proc
// tells the instances' CPU. The caller frees the documents, which the
// floor's run uses again.
func runFleetLatency(ctx context.Context, cl Cluster, o FleetOptions, procs []*fleetProc, r *FleetRun, measured bool) (*Encoded, error) {
	if o.LatencyDocs <= 0 {
		return nil, nil
	}
	if !measured {
		return nil, errors.New("the latency mode of the fleet needs the instances' CPU from /proc")
	}
	ld := NewLatencyDocs(o.Src, o.Docs, o.LatencyDocs, o.Rate, float64(o.Docs)/r.Elapsed.Seconds())
	docs, err := ld.Encode()
	if err != nil {
		return nil, err
	}
	if err := fleetLatency(ctx, cl, o, docs, procs, r); err != nil {
		_ = docs.Free()
		return nil, err
	}
	return docs, nil
}

// addUsage adds the CPU of the exited instances procs to r and keeps the
// largest peak RSS.
func (r *FleetRun) addUsage(procs []*fleetProc) {
	for _, p := range procs {
		r.CPU += p.ProcessState.UserTime() + p.ProcessState.SystemTime()
		r.MaxRSS = max(r.MaxRSS, ChildPeakRSS(p.ProcessState))
	}
}

// startFleet starts o.Instances processes of group, instance i's state in
// root/i; with o.Failover, it follows what each says of its shards.
func startFleet(o FleetOptions, root, group string) ([]*fleetProc, []*shardLog, error) {
	var procs []*fleetProc
	var logs []*shardLog
	for i := range o.Instances {
		p := o.Command(i, filepath.Join(root, strconv.Itoa(i)), group, o.Failover)
		if o.Failover {
			l, err := watchShards(p)
			if err != nil {
				return procs, nil, err
			}
			logs = append(logs, l)
		}
		fp, err := startFleetProcess(p)
		if err != nil {
			return procs, nil, fmt.Errorf("start instance %d: %w", i, err)
		}
		procs = append(procs, fp)
	}
	return procs, logs, nil
}

func pids(procs []*fleetProc) []int {
	ps := make([]int, len(procs))
	for i, p := range procs {
		ps[i] = p.Process.Pid
	}
	return ps
}

// shardFigures measures, of a sharded fleet, the bytes of its internal
// topics, the balance of its shards and, with o.Rebuild, the time a fresh
// instance with its state in dir takes to rebuild every shard.
func shardFigures(ctx context.Context, cl Cluster, o FleetOptions, group, dir string, r *FleetRun) error {
	if o.Shards == 0 {
		return nil
	}
	perShard := make([]int64, o.Shards)
	count := func(v []byte) int { shard.KeysByShard(v, perShard); return 1 }
	var err error
	if r.SequenceB, _, err = TopicBytes(ctx, cl, shard.SequenceTopic(group), count); err != nil {
		return err
	}
	r.Balance = MaxOverMean(perShard)
	if r.AnswersB, _, err = TopicBytes(ctx, cl, shard.AnswersTopic(group), nil); err != nil {
		return err
	}
	if o.Rebuild {
		r.Rebuild, err = rebuildTime(ctx, o, group, dir)
	}
	return err
}

// fleetLatency runs the latency mode on the running fleet once it has gone
// idle (with o.Settle): docs (encoded before the fleet's CPU is read)
// produced to its input topic, each read back from its output topic.
func fleetLatency(ctx context.Context, cl Cluster, o FleetOptions, docs *Encoded, procs []*fleetProc, r *FleetRun) error {
	if o.Settle {
		r.Settled = settle(ctx, procs)
	}
	before, ok := fleetCPU(procs)
	run, err := RunLatency(ctx, cl, o.Partitions, nil, Input, Output, docs, nil)
	if err != nil {
		return fmt.Errorf("fleet latency: %w", err)
	}
	if after, ok2 := fleetCPU(procs); ok && ok2 {
		r.LatencyCPU = after - before
	}
	r.Latency = run
	return nil
}

// fleetCPU is the user + system CPU of every running instance so far; false
// if /proc cannot tell.
func fleetCPU(procs []*fleetProc) (time.Duration, bool) {
	var sum time.Duration
	for _, p := range procs {
		t, ok := ProcCPU(p.Process.Pid)
		if !ok {
			return 0, false
		}
		sum += t
	}
	return sum, true
}

// rebuildTime starts one instance with an empty state directory, alone in the
// stopped group, and measures until it logs every shard serving: the time to
// rebuild all o.Shards shards by replaying the sequence log.
func rebuildTime(ctx context.Context, o FleetOptions, group, dir string) (time.Duration, error) {
	p := o.Command(0, dir, group, true)
	l, err := watchShards(p)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	fp, err := startFleetProcess(p)
	if err != nil {
		return 0, err
	}
	defer stopFleetProcess(fp) //nolint:errcheck // measured already
	if err := waitCovered(ctx, []*shardLog{l}, o.Shards, false); err != nil {
		return 0, fmt.Errorf("rebuilding instance: %w", err)
	}
	return time.Since(start), nil
}

// fleetProc is a started instance; done is closed once it has exited and
// its ProcessState is set (one goroutine waits for it).
type fleetProc struct {
	*exec.Cmd
	done chan struct{}
}

func startFleetProcess(p *exec.Cmd) (*fleetProc, error) {
	if err := p.Start(); err != nil {
		return nil, err
	}
	fp := &fleetProc{Cmd: p, done: make(chan struct{})}
	go func() {
		_ = p.Wait() // the exit status is in ProcessState
		close(fp.done)
	}()
	return fp, nil
}

// Wait waits for the instance to exit (exec.Cmd's Wait may be called once,
// and the goroutine of startFleetProcess does).
func (p *fleetProc) Wait() error {
	<-p.done
	if !p.ProcessState.Success() {
		return fmt.Errorf("exited: %v", p.ProcessState)
	}
	return nil
}

func (p *fleetProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitCommitted waits until group has committed the whole bench input, or an
// instance exits first.
func waitCommitted(ctx context.Context, cl Cluster, group string, procs []*fleetProc) error {
	for {
		lag, err := embedded.GroupLagWith(ctx, cl.Transport(), cl.Addr, group, Input)
		if err == nil && lag == 0 {
			return nil
		}
		for i, p := range procs {
			if p.exited() {
				return fmt.Errorf("instance %d exited: %v", i, p.ProcessState)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stopFleet stops every instance still running at once: stopped one after
// the other, the last ones would take over the shards of those gone and
// rebuild them from the log, work the measurement would count.
func stopFleet(procs []*fleetProc) error {
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		if p.exited() { // killed by the failover measurement
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := stopFleetProcess(p); err != nil {
				errs[i] = fmt.Errorf("instance %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func stopFleetProcess(p *fleetProc) error {
	if err := p.Process.Signal(StopSignal()); err != nil {
		return err
	}
	select {
	case <-p.done:
		return p.Wait()
	case <-time.After(time.Minute):
		_ = p.Process.Kill()
		<-p.done
		return errors.New("did not stop within a minute of SIGTERM")
	}
}
