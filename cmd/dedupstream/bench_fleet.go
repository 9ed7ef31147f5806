package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dedupstream/dedupstream/stream/bench"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/shard"
)

// fleetRun is one measured run of the filter as separate processes.
type fleetRun struct {
	instances, shards   int
	pin                 int           // CPUs the instances were pinned to (taskset), 0: none
	elapsed             time.Duration // from the first start until the group committed the whole input
	cpu                 time.Duration // user + system CPU of every instance, summed
	maxRSS              int64         // the largest instance's peak RSS
	maxAnon             int64         // the largest instance's peak RssAnon (sampled), 0: unknown
	stateB              int64         // every instance's state directory, summed
	sequenceB, answersB int64         // key + value bytes written to the internal topics
	balance             float64       // postings (index keys routed) of the fullest shard over the mean (1: even)
	records             int64
	rebuild             time.Duration // a fresh instance's time to rebuild every shard from the sequence log; 0: not measured
	failover            *failover     // the last instance SIGKILLed after the run; nil: not measured
	// The latency mode, after the throughput run (nil: not measured): the
	// fleet's, the harness's floor measured once the fleet had stopped, and
	// every instance's CPU during the fleet's.
	latency, floor *bench.LatencyRun
	latencyCPU     time.Duration
	settled        time.Duration // how long the fleet took to go idle before it
}

// runFleet runs the filter as o.instances "dedupstream run" processes of one
// group (with o.shards index shards; 0 is the single-instance index, for one
// instance), each pinned to CPU i mod o.pin when o.pin > 0, over the produced
// bench input. It measures until the group has committed the whole input;
// with o.latencyDocs, it then waits for the fleet to go idle and runs the
// latency mode on it, producing src's next documents to the same input
// topic. Then it stops the instances with SIGTERM and reads their resource
// usage: their CPU up to the commit when the latency mode ran (the peak RSS
// covers it). The peak anonymous RSS is sampled until the latency mode ends.
func runFleet(ctx context.Context, cl bench.Cluster, o benchOptions, src *bench.Source) (*fleetRun, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "dedupstream-fleet-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	group := "bench-fleet-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	r := &fleetRun{instances: o.instances, shards: o.shards, pin: o.pin}
	start := time.Now()
	var procs []*fleetProc
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			<-p.done
		}
	}()
	var logs []*shardLog // with o.failover: what each instance says of its shards
	for i := range o.instances {
		p := fleetProcess(exe, cl.Addr, group, filepath.Join(root, strconv.Itoa(i)), i, o)
		if o.failover {
			l, err := watchShards(p)
			if err != nil {
				return nil, err
			}
			logs = append(logs, l)
		}
		fp, err := startFleetProcess(p)
		if err != nil {
			return nil, fmt.Errorf("start instance %d: %w", i, err)
		}
		procs = append(procs, fp)
	}
	pids := make([]int, len(procs))
	for i, p := range procs {
		pids[i] = p.Process.Pid
	}
	peakAnon := bench.PeakChildAnon(pids)
	defer peakAnon()
	if err := waitCommitted(ctx, cl, group, procs); err != nil {
		return nil, err
	}
	r.elapsed = time.Since(start)
	cpuAtCommit, measured := fleetCPU(procs)
	var docs *bench.Encoded // the latency mode's, for the fleet's run and then the floor's
	if o.latencyDocs > 0 {
		if !measured {
			return nil, errors.New("the latency mode of the fleet needs the instances' CPU from /proc")
		}
		if docs, err = fleetLatencyDocs(o, src, r).Encode(); err != nil {
			return nil, err
		}
		defer func() { _ = docs.Free() }()
		if err := fleetLatency(ctx, cl, o, docs, procs, r); err != nil {
			return nil, err
		}
	}
	r.maxAnon = peakAnon()
	if o.failover {
		if r.failover, err = killOne(ctx, procs, logs, o.shards); err != nil {
			return nil, err
		}
	}
	if err := stopFleet(procs); err != nil {
		return nil, err
	}
	for _, p := range procs {
		r.cpu += p.ProcessState.UserTime() + p.ProcessState.SystemTime()
		r.maxRSS = max(r.maxRSS, bench.ChildPeakRSS(p.ProcessState))
	}
	if r.latency != nil {
		r.cpu = cpuAtCommit
		if r.floor, err = brokerLatency(ctx, cl, o, docs); err != nil {
			return nil, fmt.Errorf("latency without a pipeline: %w", err)
		}
	}
	procs = nil
	r.stateB = bench.DirSize(root)
	r.records = int64(o.docs)
	if o.shards > 0 {
		perShard := make([]int64, o.shards)
		count := func(v []byte) int { shard.KeysByShard(v, perShard); return 1 }
		if r.sequenceB, _, err = bench.TopicBytes(ctx, cl, shard.SequenceTopic(group), count); err == nil {
			r.balance = bench.MaxOverMean(perShard)
			r.answersB, _, err = bench.TopicBytes(ctx, cl, shard.AnswersTopic(group), nil)
		}
		if err == nil && o.rebuild {
			r.rebuild, err = rebuildTime(ctx, exe, cl.Addr, group, filepath.Join(root, "rebuild"), o)
		}
	}
	return r, err
}

// fleetLatency runs the latency mode on the running fleet once it has gone
// idle (with o.settle): docs (of fleetLatencyDocs, encoded before the fleet's
// CPU is read) produced to its input topic, each read back from its output topic.
func fleetLatency(ctx context.Context, cl bench.Cluster, o benchOptions, docs *bench.Encoded, procs []*fleetProc, r *fleetRun) error {
	if o.settle {
		r.settled = settle(ctx, procs)
	}
	before, ok := fleetCPU(procs)
	run, err := bench.RunLatency(ctx, cl, o.partitions, nil, "bench", "bench.out", docs, nil)
	if err != nil {
		return fmt.Errorf("fleet latency: %w", err)
	}
	if after, ok2 := fleetCPU(procs); ok && ok2 {
		r.latencyCPU = after - before
	}
	r.latency = run
	return nil
}

// fleetLatencyDocs are the documents of the fleet's latency mode (latencyDocs
// at the fleet's throughput).
func fleetLatencyDocs(o benchOptions, src *bench.Source, r *fleetRun) bench.LatencyDocs {
	return latencyDocs(o, src, float64(o.docs)/r.elapsed.Seconds())
}

// fleetCPU is the user + system CPU of every running instance so far; false
// if /proc cannot tell.
func fleetCPU(procs []*fleetProc) (time.Duration, bool) {
	var sum time.Duration
	for _, p := range procs {
		t, ok := bench.ProcCPU(p.Process.Pid)
		if !ok {
			return 0, false
		}
		sum += t
	}
	return sum, true
}

// rebuildTime starts one instance with an empty state directory, alone in the
// stopped group, and measures until it logs every shard serving: the time to
// rebuild all o.shards shards by replaying the sequence log.
func rebuildTime(ctx context.Context, exe, addr, group, dir string, o benchOptions) (time.Duration, error) {
	one := o
	one.instances = 1
	p := fleetProcess(exe, addr, group, dir, 0, one)
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
	if err := waitCovered(ctx, []*shardLog{l}, o.shards, false); err != nil {
		return 0, fmt.Errorf("rebuilding instance: %w", err)
	}
	return time.Since(start), nil
}

// fleetProcess is instance i's "dedupstream run". It takes the bench's
// --config (the cluster's kafka.tls and kafka.sasl) and, of the DEDUPSTREAM_
// environment, only the security settings (DEDUPSTREAM_KAFKA_TLS_*, _SASL_*).
func fleetProcess(exe, addr, group, dir string, i int, o benchOptions) *exec.Cmd {
	args := []string{exe, "run"}
	if o.config != "" {
		args = append(args, "--config", o.config)
	}
	if o.cpuProfile != "" {
		args = append(args, "--cpuprofile", fmt.Sprintf("%s.%d", o.cpuProfile, i))
	}
	if o.pin > 0 {
		args = append([]string{"taskset", "-c", strconv.Itoa(i % o.pin)}, args...)
	}
	p := exec.Command(args[0], args[1:]...)
	env := []string{
		"DEDUPSTREAM_KAFKA_BROKERS=" + addr, "DEDUPSTREAM_KAFKA_INPUT=bench", "DEDUPSTREAM_KAFKA_OUTPUT=bench.out",
		"DEDUPSTREAM_KAFKA_DEAD_LETTER=bench.dlq", "DEDUPSTREAM_KAFKA_GROUP=" + group, "DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=2s",
		"DEDUPSTREAM_STATE_DIR=" + dir, "DEDUPSTREAM_INDEX_SHARDS=" + strconv.Itoa(o.shards),
		"DEDUPSTREAM_BATCH_SIZE=" + strconv.Itoa(o.batch), "DEDUPSTREAM_ADMIN_LISTEN=127.0.0.1:0",
		"DEDUPSTREAM_LOG_LEVEL=" + cmp.Or(os.Getenv("DEDUPSTREAM_LOG_LEVEL"), "warn"), "DEDUPSTREAM_LOG_FORMAT=json",
		"DEDUPSTREAM_SKETCH_METHOD=" + o.method, "DEDUPSTREAM_INDEX_STANDBYS=" + strconv.Itoa(o.standbys),
		"DEDUPSTREAM_SKETCH_BANDS=" + strconv.Itoa(o.bands), "DEDUPSTREAM_SKETCH_ROWS=" + strconv.Itoa(o.rows),
		"DEDUPSTREAM_BATCH_HOLD_WHEN_IDLE=" + strconv.FormatBool(o.holdWhenIdle),
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPrefix) || strings.HasPrefix(kv, envPrefix+"KAFKA_TLS_") || strings.HasPrefix(kv, envPrefix+"KAFKA_SASL_") {
			env = append(env, kv)
		}
	}
	p.Env = env
	p.Stderr = os.Stderr
	return p
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
func waitCommitted(ctx context.Context, cl bench.Cluster, group string, procs []*fleetProc) error {
	for {
		lag, err := embedded.GroupLagWith(ctx, cl.Transport(), cl.Addr, group, "bench")
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
	if err := p.Process.Signal(bench.StopSignal()); err != nil {
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

func printFleet(w io.Writer, pass *benchRun, r *fleetRun, pr bench.PageReporting) {
	mode := "single-instance index"
	if r.shards > 0 {
		mode = fmt.Sprintf("sharded index, %d shards", r.shards)
	}
	s := r.elapsed.Seconds()
	fmt.Fprintf(w, "\nfleet: %d instance(s) as processes, %s (wall time from the first start to the last commit, group joins included)\n\n", r.instances, mode)
	if r.latency != nil {
		fmt.Fprintf(w, "(state and topic bytes per document over all %d documents the fleet filtered, the latency mode's included)\n\n", r.processed())
	}
	fmt.Fprintln(w, "| instances | shards | docs | seconds | docs/s | CPU s (all instances) | CPU µs/doc | max RSS MB | max peak anonymous MB | state bytes/doc | sequence-log bytes/doc | answer-topic bytes/doc |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	per := func(b int64) float64 { return float64(b) / float64(r.processed()) }
	fmt.Fprintf(w, "| %d | %d | %d | %.2f | %.0f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", r.instances, r.shards, r.records, s,
		float64(r.records)/s, r.cpu.Seconds(), float64(r.cpu.Microseconds())/float64(r.records), float64(r.maxRSS)/1e6,
		float64(r.maxAnon)/1e6, per(r.stateB), per(r.sequenceB), per(r.answersB))
	if pass != nil {
		fmt.Fprintf(w, "\nthroughput ratio fleet/passthrough: %.2f\n", pass.Elapsed.Seconds()/s)
	}
	if f := r.failover; f != nil {
		fmt.Fprintf(w, "failover: instance %d (shards %v) SIGKILLed once the fleet was idle (%.1f s after the run); the others served all %d shards %.2f s later (%d reopened warm, %d rebuilt from the sequence log; session timeout 2 s)\n",
			f.killed, f.shards, f.settled.Seconds(), r.shards, f.took.Seconds(), f.warm, f.rebuilt)
	}
	if r.rebuild > 0 {
		fmt.Fprintf(w, "rebuild: a fresh instance replayed all %d shards (%.0f MB of sequence log) in %.2f s\n", r.shards, float64(r.sequenceB)/1e6, r.rebuild.Seconds())
	}
	if l := r.latency; l != nil {
		idle := "at once (--settle=false)"
		if r.settled > 0 {
			idle = fmt.Sprintf("once it had been idle for a second (%.1f s after the commit; at most 10 min)", r.settled.Seconds())
		}
		fmt.Fprintf(w, "\nlatency mode: %d documents (after %d warm-up) produced at %.0f docs/s to the running fleet's input, %s;\n"+
			"per record from the input record's timestamp to the output record's read-back; with the %d documents of the\n"+
			"throughput run stored\n\n", l.Docs, bench.LatencyWarmup, l.Produced, idle, r.records)
		printLatencyTable(w, r.floor, nil, "dedupstream fleet", l)
		fmt.Fprintf(w, "\nthe instances' CPU during the latency run (its warm-up included): %.1f s, %.0f µs a record\n", r.latencyCPU.Seconds(), r.latencyCPUPerRecord())
		if l.BrokerKnown {
			fmt.Fprintf(w, "while the measured records were produced and read back, the broker process's CPU: %.1f s, %.0f µs a record; this process's (producer, read-back): %.1f s, %.0f µs a record\n",
				l.BrokerCPU.Seconds(), perRecord(l.BrokerCPU, l.Docs), l.CPU.Seconds(), perRecord(l.CPU, l.Docs))
		}
	}
	latRate := "-"
	if r.latency != nil {
		latRate = fmt.Sprintf("%.0f", r.latency.Produced)
	}
	fmt.Fprintf(w, "fleet instances=%d shards=%d pin=%d docs=%d seconds=%.2f docs_per_s=%.0f cpu_s=%.2f cpu_us_per_doc=%.0f max_rss_mb=%.0f max_peak_anon_mb=%.0f state_b_per_doc=%.0f sequence_b_per_doc=%.0f answers_b_per_doc=%.0f shard_balance=%.3f rebuild_s=%.2f failover_s=%.2f",
		r.instances, r.shards, r.pin, r.records, s, float64(r.records)/s, r.cpu.Seconds(), float64(r.cpu.Microseconds())/float64(r.records),
		float64(r.maxRSS)/1e6, float64(r.maxAnon)/1e6, per(r.stateB), per(r.sequenceB), per(r.answersB), r.balance, r.rebuild.Seconds(), r.failover.seconds())
	latBroker := "-"
	if r.latency != nil && r.latency.BrokerKnown {
		latBroker = fmt.Sprintf("%.0f", perRecord(r.latency.BrokerCPU, r.latency.Docs))
	}
	fmt.Fprintf(w, " latency_rate=%s floor_p50_ms=%s floor_p99_ms=%s floor_max_ms=%s p50_ms=%s p99_ms=%s max_ms=%s latency_cpu_us=%.0f latency_broker_us=%s page_reporting=%s\n",
		latRate, latencyMS(r.floor, 0.5), latencyMS(r.floor, 0.99), latencyMS(r.floor, 1),
		latencyMS(r.latency, 0.5), latencyMS(r.latency, 0.99), latencyMS(r.latency, 1), r.latencyCPUPerRecord(), latBroker, pr)
}

// processed is how many documents the fleet filtered: the throughput run's,
// and the latency mode's with its warm-up.
func (r *fleetRun) processed() int64 {
	if r.latency == nil {
		return r.records
	}
	return r.records + int64(bench.LatencyWarmup+r.latency.Docs)
}

// latencyCPUPerRecord is the instances' CPU a record of the latency run, in µs.
func (r *fleetRun) latencyCPUPerRecord() float64 {
	if r.latency == nil || r.latency.Docs == 0 {
		return 0
	}
	return perRecord(r.latencyCPU, bench.LatencyWarmup+r.latency.Docs)
}
