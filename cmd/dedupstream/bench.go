package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/dedupstream/dedupstream/offline/lab/corpus"
	"github.com/dedupstream/dedupstream/stream/bench"
)

// benchOptions are the bench command's flags.
type benchOptions struct {
	bench.Options                    // Docs, Partitions, StateDir, LatencyDocs, Rate, Timeline
	pipes         bench.Pipelines    // the in-process pipelines
	fleet         bench.FleetOptions // fleet mode: Instances, Shards, Pin, Rebuild, Failover
	trace         bench.SlowTrace    // latency mode: execution traces of late records (Path "": none)
	standbys      int                // index.standbys of the fleet
	corpus        string
	brokers       string
	brokerLog     string // the embedded broker's log: "disk" or "memory"
	config        string // with brokers: kafka.tls and kafka.sasl, as run reads them
	copyRate      float64
}

// cmdBench measures the filter end to end (bench.Execute): it produces
// documents to a broker (a separate embedded-broker process by default), runs
// a plain consume→produce passthrough over them, then the filter with state
// on disk, and prints throughput, CPU, memory and state size for both.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseBench(args, stderr)
	if err != nil {
		return err
	}
	src, err := bench.NewSource(o.corpus, corpusBodies(o.corpus), o.copyRate)
	if err != nil {
		return err
	}
	cl, stop, err := benchBroker(ctx, o)
	if err != nil {
		return err
	}
	defer stop()
	bo := o.Options
	bo.Src = src
	if o.brokers == "" {
		bo.Where = " (embedded broker, log on " + o.brokerLog + ")"
	}
	if o.fleet.Instances > 0 {
		fo, err := fleetOptions(o, src, cl.Addr)
		if err != nil {
			return err
		}
		bo.Fleet = &fo
	}
	o.pipes.Process, o.pipes.Trace = process(), &o.trace
	return bench.Execute(ctx, stdout, cl, bo, o.pipes.Runs(cl, bo))
}

// corpusBodies reads the bodies of the corpus at path (corpus.Read).
func corpusBodies(path string) bench.Bodies {
	return func(each func(string) error) error {
		return corpus.Read(path, 0, func(d corpus.Doc) error { return each(d.Body) })
	}
}

func parseBench(args []string, stderr io.Writer) (benchOptions, error) {
	var o benchOptions
	fs := newFlags("bench", stderr)
	fs.IntVar(&o.Docs, "docs", 100000, "documents to produce and filter")
	fs.StringVar(&o.corpus, "corpus", "", "corpus whose documents (and word-shuffled variants past its size) are the input (default: 20news-bydate.tar.gz in the shared/corpora beside the repository)")
	fs.StringVar(&o.brokers, "brokers", "", "use these brokers instead of starting an embedded broker process")
	fs.StringVar(&o.brokerLog, "broker-log", "disk", "where the embedded broker process keeps its log: disk (a temporary directory, removed at exit, held in the kernel's page cache as a Kafka broker's is) or memory (its Go heap: at 1M documents several GB, and a broker that spends up to half its CPU zeroing fresh pages for it)")
	fs.StringVar(&o.config, "config", "", "with --brokers: YAML configuration whose kafka.tls and kafka.sasl keys (and DEDUPSTREAM_KAFKA_TLS_*, _SASL_*) secure the connections, as for run")
	fs.IntVar(&o.Partitions, "partitions", 2, "partitions of the bench topics (embedded broker)")
	fs.StringVar(&o.StateDir, "state", "", "state directory (default: a temporary one, removed at exit)")
	fs.Float64Var(&o.copyRate, "copy-rate", 0.2, "fraction of documents that are near-copies (1% words edited) of a recent one")
	fs.IntVar(&o.pipes.Filter.Batch, "batch", 500, "batch.size of the filter and the passthrough")
	fs.BoolVar(&o.pipes.Filter.HoldWhenIdle, "hold-when-idle", false, "batch.hold_when_idle of the filter, the passthrough and the fleet's instances: hold every batch for batch.linger, even when the pipeline is idle")
	fs.BoolVar(&o.pipes.Passthrough, "passthrough", true, "also run a plain consume→produce passthrough for the overhead ratio")
	fs.StringVar(&o.pipes.Profiles.CPU, "cpuprofile", "", "write a CPU profile of the filter run to this file, and one of its latency run to FILE.latency (fleet mode: FILE.i for instance i, the whole run)")
	// Enough to fill six or so of the default 8 MiB memtables (~31,000
	// documents' keys each): their switches and flushes make the tail, and a
	// run of 10,000 fills none.
	fs.IntVar(&o.LatencyDocs, "latency-docs", 200000, "documents of the latency mode, produced at --rate while the pipeline runs (0: throughput mode only); the default fills several of the filter's memtables, whose switches and flushes make the tail")
	fs.Float64Var(&o.Rate, "rate", 0, "docs/s of the latency mode's producer (0: half the filter's docs/s in the throughput mode)")
	fs.Int64Var(&o.pipes.Filter.MemtableBytes, "memtable-bytes", 0, "state.memtable_bytes of the filter run (0: the default)")
	fs.IntVar(&o.pipes.Filter.NumMemtables, "num-memtables", 0, "state.num_memtables of the filter run (0: the default)")
	fs.Int64Var(&o.pipes.Filter.MemoryLimit, "memory-limit", 0, "memory_limit (Go soft memory limit, bytes) of the filter run; 0: automatic, as run's default; -1: none")
	fs.StringVar(&o.pipes.Filter.Method, "method", "", "sketch.method of the filter run: minhash, oph, bottomk, modm, full, supershingle, simhash (default oph; imatch needs a vocabulary)")
	fs.StringVar(&o.pipes.Filter.Verify, "verify", "", "sketch.verify.method of the filter run: none, full, bottomk, modm, minhash, oph (default none)")
	fs.IntVar(&o.pipes.Filter.VerifyPerm, "verify-num-perm", 0, "sketch.verify.num_perm of the filter run (k of a bottomk verifier); 0: sketch.num_perm")
	fs.IntVar(&o.fleet.Instances, "instances", 0, "run the filter as this many 'dedupstream run' processes of one group (fleet mode) instead of in process; the latency mode then produces to the running fleet once it is idle (--settle), and the CPU reported is the fleet's until it had committed the throughput run")
	fs.IntVar(&o.fleet.Shards, "index-shards", 0, "index.shards of the fleet's instances (0: the single-instance index, for --instances 1)")
	fs.BoolVar(&o.fleet.Rebuild, "rebuild", false, "fleet mode with --index-shards: then time a fresh instance (empty state) rebuilding every shard from the sequence log")
	fs.BoolVar(&o.fleet.Failover, "failover", false, "fleet mode with --index-shards and --instances ≥ 2: then SIGKILL the last instance and time until the others serve all its shards (warm from standbys or rebuilt from the sequence log)")
	fs.IntVar(&o.standbys, "standbys", 0, "index.standbys of the fleet's instances (warm copies of each shard)")
	fs.IntVar(&o.fleet.Pin, "pin", 0, "fleet mode: pin instance i to CPU i mod N with taskset (0: no pinning)")
	fs.IntVar(&o.pipes.Filter.Bands, "bands", 0, "sketch.bands of the filter run (LSH bands of minhash and oph; 0 with --rows 0: chosen from the threshold)")
	fs.IntVar(&o.pipes.Filter.Rows, "rows", 0, "sketch.rows of the filter run (rows per band)")
	fs.BoolVar(&o.pipes.Filter.Contain, "contain", false, "sketch.contain of the filter run: minhash or oph with the containment sample")
	fs.BoolVar(&o.pipes.Settle, "settle", true, "latency mode: once the filter has opened its state, wait (at most 5 minutes) until no level is due for compaction and no compaction has finished for 2 s before producing, so that the compaction debt of the throughput run is not measured as latency (fleet mode: until the instances have used under a tenth of a core for a second, at most 10 minutes); false: produce at once")
	fs.BoolVar(&o.Timeline, "timeline", false, "latency mode, filter in process: print the run in windows of 0.5 s of production — p99, max, this process's CPU, the state's tables per level — to see a tail build up and what ran meanwhile")
	fs.StringVar(&o.pipes.Log, "log", "", "latency mode: write the filter's log, debug level (Badger's flushes and compactions included), as JSON lines to this file")
	fs.StringVar(&o.trace.Path, "trace", "", "latency mode, filter in process: keep the last seconds of the process's Go execution trace in memory and write them to this file (then FILE.2, ...) shortly after a record comes back --trace-over late (go tool trace FILE)")
	fs.DurationVar(&o.trace.Over, "trace-over", 50*time.Millisecond, "with --trace: how late a record must be to trigger a trace")
	fs.IntVar(&o.trace.Max, "traces", 3, "with --trace: traces written at most (each triggered at least 3 s after the one before)")
	fs.StringVar(&o.pipes.Profiles.Mem, "memprofile", "", "write a heap profile (in-use memory at the end of the filter run) to this file, and one at the live heap's peak during the run to this file .peak; with the latency mode, also FILE.latency.base and FILE.latency at its start and end, whose difference (go tool pprof -base) is what its run allocated")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	if o.corpus == "" {
		p, err := corpus.Locate("corpora", "20news-bydate.tar.gz")
		if err != nil {
			return o, fmt.Errorf("bench: -corpus not given and %w", err)
		}
		o.corpus = p
	}
	if o.Docs < 1 || o.Partitions < 1 || o.pipes.Filter.Batch < 1 || o.copyRate < 0 || o.copyRate > 1 || o.LatencyDocs < 0 || o.Rate < 0 {
		return o, fmt.Errorf("bench: -docs, -partitions and -batch must be positive, -copy-rate in [0, 1], -latency-docs and -rate not negative")
	}
	if o.brokerLog != "disk" && o.brokerLog != "memory" {
		return o, fmt.Errorf("bench: -broker-log must be disk or memory, got %q", o.brokerLog)
	}
	if o.brokers != "" && given(fs, "broker-log") {
		return o, fmt.Errorf("bench: -broker-log is the embedded broker's: not with -brokers")
	}
	if o.fleet.Failover && (o.fleet.Instances < 2 || o.fleet.Shards < 1) {
		return o, fmt.Errorf("bench: -failover needs -instances 2 or more and -index-shards")
	}
	if o.trace.Path != "" {
		if o.fleet.Instances > 0 || o.LatencyDocs == 0 {
			return o, fmt.Errorf("bench: -trace traces the in-process filter's latency run: not with -instances, and only with -latency-docs")
		}
		if err := o.trace.Validate(); err != nil {
			return o, fmt.Errorf("bench: -trace-over, -traces: %w", err)
		}
	}
	if o.brokers != "" {
		k, err := toolKafka(o.config)
		if err != nil {
			return o, fmt.Errorf("bench: %w", err)
		}
		o.pipes.Filter.Kafka = k
	}
	return o, nil
}
