package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// demoOptions are the demo's flags.
type demoOptions struct {
	pages      int
	corpus     string
	limit      int
	seed       uint64
	partitions int
	threshold  float64
	mode       string
	stateDir   string
	examples   int
	verbose    bool
}

// cmdDemo runs the whole filter on an embedded broker: it produces pages with
// known near-duplicates, runs the pipeline over them, reads the output topics
// back and prints what happened.
func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseDemo(args, stderr)
	if err != nil {
		return err
	}
	pages, err := demoPages(o)
	if err != nil {
		return err
	}
	b, err := embedded.Start(embedded.Options{
		Topics: []string{"pages", "pages.out", "pages.dlq", "pages.dups"}, Partitions: o.partitions,
	})
	if err != nil {
		return err
	}
	defer b.Close()
	cfg, cleanup, err := demoConfig(o, b.Addr())
	if err != nil {
		return err
	}
	defer cleanup()
	method, err := cfg.newMethod()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "dedupstream demo: %d records (%s) through an embedded broker at %s\n", pages.Len(), pages.source, b.Addr())
	fmt.Fprintf(stdout, "  sketch %s, threshold %.2f, mode %s, %d partitions, state %s\n\n",
		method.Version(), cfg.Sketch.Params.Threshold, cfg.Mode, o.partitions, cfg.State.Dir)
	if err := produce(ctx, b.Addr(), "pages", pages.msgs); err != nil {
		return err
	}
	res, err := runDemoFilter(ctx, cfg, len(pages.msgs), o.verbose, stderr)
	if err != nil {
		return err
	}
	out, err := readOutputs(ctx, b.Addr(), cfg)
	if err != nil {
		return err
	}
	printSummary(stdout, pages, res, out, o.examples)
	return nil
}

func parseDemo(args []string, stderr io.Writer) (demoOptions, error) {
	var o demoOptions
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.pages, "pages", 3000, "generated pages to produce (without --corpus)")
	fs.StringVar(&o.corpus, "corpus", "", "real documents to wrap as pages: a directory, a .jsonl file, or ../shared/corpora/{reuters21578,20news-bydate}.tar.gz")
	fs.IntVar(&o.limit, "limit", 2000, "documents to read from --corpus (0: all)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the page generator")
	fs.IntVar(&o.partitions, "partitions", 2, "partitions of the demo topics")
	fs.Float64Var(&o.threshold, "threshold", 0.8, "Jaccard similarity threshold")
	fs.StringVar(&o.mode, "mode", "tag", "tag or drop")
	fs.StringVar(&o.stateDir, "state", "", "state directory to keep (default: a temporary one, removed at exit)")
	fs.IntVar(&o.examples, "examples", 6, "example duplicate pairs to print")
	fs.BoolVar(&o.verbose, "v", false, "show the filter's logs")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	if o.pages < 1 || o.partitions < 1 || o.limit < 0 {
		return o, fmt.Errorf("demo: -pages and -partitions must be positive, -limit not negative")
	}
	return o, nil
}

// demoConfig is the filter's configuration for the demo: defaults, the embedded
// broker, and state in a temporary directory unless -state is given.
func demoConfig(o demoOptions, addr string) (Config, func(), error) {
	var cfg Config
	cfg.Kafka.Brokers = []string{addr}
	cfg.Kafka.Input, cfg.Kafka.Output = "pages", "pages.out"
	cfg.Kafka.DeadLetter, cfg.Kafka.Duplicates = "pages.dlq", "pages.dups"
	cfg.Kafka.Group = "dedupstream-demo"
	cfg.Sketch.Params.Threshold = o.threshold
	cfg.Decode.MaxMessageBytes = 256 << 10 // so the demo's oversized record fits the broker's 1 MB limit
	cleanup := func() {}
	cfg.State.Dir = o.stateDir
	if o.stateDir == "" {
		dir, err := os.MkdirTemp("", "dedupstream-demo-*")
		if err != nil {
			return cfg, cleanup, err
		}
		cfg.State.Dir = dir
		cleanup = func() { os.RemoveAll(dir) }
	}
	if err := setKey(&cfg, "mode", o.mode); err != nil {
		return cfg, cleanup, err
	}
	cfg.ensureDefaults()
	cfg.Admin.Listen = "" // the demo runs no admin server
	return cfg, cleanup, cfg.validate()
}

// demoResult is what the filter did and how long it took.
type demoResult struct {
	counts  stream.Counts
	elapsed time.Duration
}

// runDemoFilter runs the filter until it has processed n records (or ctx
// ends), then stops it, waits for its drain and closes it. opts adjust the
// pipeline (tests).
func runDemoFilter(ctx context.Context, cfg Config, n int, verbose bool, stderr io.Writer, opts ...appOption) (demoResult, error) {
	log := zap.NewNop()
	if verbose {
		var err error
		if log, err = newLogger(LogConfig{Level: "info", Format: "console"}, stderr); err != nil {
			return demoResult{}, err
		}
	}
	a, err := newApp(cfg, log, opts...)
	if err != nil {
		return demoResult{}, err
	}
	start := time.Now()
	run := stream.Start(ctx, stream.RunnerFunc(a.run))
	err = run.WaitFor(ctx, func() bool { return a.pipe.Counts().Records >= int64(n) }, 5*time.Millisecond)
	res := demoResult{elapsed: time.Since(start)}
	err = errors.Join(err, run.Stop())
	res.counts = a.pipe.Counts()
	return res, errors.Join(err, a.close())
}
