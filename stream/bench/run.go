package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
)

// Options say what Execute produces and measures.
type Options struct {
	Docs       int     // documents produced to Input and filtered
	Partitions int     // the bench topics'
	Src        *Source // the documents
	// Where says where the brokers are, after their address in the first
	// line printed (e.g. "(embedded broker, log on disk)"); may be empty.
	Where string
	// StateDir is the in-process filter's state directory; empty: a
	// temporary one, removed when Execute returns.
	StateDir string
	// LatencyDocs, when positive, runs the latency mode after the throughput
	// mode with that many documents, at Rate (0: half the filter's docs/s).
	LatencyDocs int
	Rate        float64
	Timeline    bool          // print the in-process latency run in windows (WriteLatency)
	Fleet       *FleetOptions // the filter as processes (RunFleet); nil: in process
}

// Runs are the pipelines Execute measures, which the caller builds from its
// configuration. Passthrough and PassLatency are nil to measure no
// passthrough; the filter's runs keep their state in dir.
type Runs struct {
	Passthrough   func(ctx context.Context) (*FilterRun, error)
	PassLatency   LatencyRunner
	Filter        func(ctx context.Context, dir string) (*FilterRun, error)
	FilterLatency func(ctx context.Context, dir string, docs *Encoded) (*LatencyRun, error)
}

// Execute is "dedupstream bench" over the cluster cl: it produces o.Docs
// documents, runs the passthrough and then the filter over them (in process,
// or as o.Fleet), the latency mode with o.LatencyDocs, and writes every
// table to w.
func Execute(ctx context.Context, w io.Writer, cl Cluster, o Options, r Runs) error {
	bytes, err := Produce(ctx, cl, Input, o.Src, o.Docs)
	if err != nil {
		return err
	}
	ReleaseMemory()
	fmt.Fprintf(w, "bench: %d documents (%.1f MB, %s) on %s, %d partitions, GOMAXPROCS %d\n",
		o.Docs, float64(bytes)/1e6, o.Src.Name, cl.Addr+o.Where, o.Partitions, runtime.GOMAXPROCS(0))
	pr := ReadPageReporting("/")
	WritePageReporting(w, pr)
	var pass *FilterRun
	if r.Passthrough != nil {
		if pass, err = r.Passthrough(ctx); err != nil {
			return err
		}
		ReleaseMemory()
	}
	if o.Fleet != nil {
		run, err := RunFleet(ctx, cl, *o.Fleet)
		if err != nil {
			return err
		}
		WriteFleet(w, pass, run, pr)
		return nil
	}
	return runInProcess(ctx, w, cl, o, r, bytes, pass, pr)
}

// runInProcess is Execute's filter in process: the throughput mode, then the
// latency mode on the state it left.
func runInProcess(ctx context.Context, w io.Writer, cl Cluster, o Options, r Runs, bytes int64, pass *FilterRun, pr PageReporting) error {
	dir, cleanup, err := stateDir(o.StateDir)
	if err != nil {
		return err
	}
	defer cleanup()
	run, err := r.Filter(ctx, dir)
	if err != nil {
		return err
	}
	WriteThroughput(w, bytes, pass, run)
	var floor, lpass, lrun *LatencyRun
	if o.LatencyDocs > 0 {
		ld := NewLatencyDocs(o.Src, o.Docs, o.LatencyDocs, o.Rate, float64(run.Counts.Records)/run.Elapsed.Seconds())
		filter := func(ctx context.Context, docs *Encoded) (*LatencyRun, error) { return r.FilterLatency(ctx, dir, docs) }
		if floor, lpass, lrun, err = LatencyMode(ctx, cl, o.Partitions, ld, r.PassLatency, filter); err != nil {
			return err
		}
		WriteLatency(w, ld, run.StateDocs, floor, lpass, lrun, o.Timeline)
	}
	WriteSummary(w, o.Docs, pr, pass, run, floor, lpass, lrun)
	return nil
}

// stateDir returns dir, or if empty a temporary directory that cleanup
// removes.
func stateDir(dir string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "dedupstream-bench-*")
	if err != nil {
		return "", nil, fmt.Errorf("bench state directory: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
