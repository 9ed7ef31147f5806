package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/offline/lab/demo"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/shard"
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
	instances  int    // filters sharing one sharded index (1: the single-instance filter)
	shards     int    // index.shards when instances > 1
	brokers    string // a cluster to use instead of the embedded broker
	config     string // its kafka.tls and kafka.sasl, as run reads them
}

// cmdDemo runs the whole filter on an embedded broker: it produces pages with
// known near-duplicates, runs the pipeline over them, reads the output topics
// back and prints what happened.
func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseDemo(args, stderr)
	if err != nil {
		return err
	}
	pages, err := demo.Pages(demo.Options{Pages: o.pages, Corpus: o.corpus, Limit: o.limit, Seed: o.seed})
	if err != nil {
		return err
	}
	addr, sec, closeBroker, err := demoBroker(o)
	if err != nil {
		return err
	}
	defer closeBroker()
	cfg, cleanup, err := demoConfig(o, addr)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg.Kafka.TLS, cfg.Kafka.SASL = sec.TLS, sec.SASL
	method, err := cfg.newMethod()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "dedupstream demo: %d records (%s) through the broker at %s\n", pages.Len(), pages.Source, addr)
	fmt.Fprintf(stdout, "  sketch %s, threshold %.2f, mode %s, %d partitions, state %s\n",
		method.Version(), cfg.Sketch.Params.Threshold, cfg.Mode, o.partitions, cfg.State.Dir)
	if o.instances > 1 {
		fmt.Fprintf(stdout, "  %d instances sharing one index of %d shards (topics %s, %s)\n",
			o.instances, o.shards, shard.SequenceTopic(cfg.Kafka.Group), shard.AnswersTopic(cfg.Kafka.Group))
	}
	fmt.Fprintln(stdout)
	return demo.Execute(ctx, stdout, demo.Setup{Pages: pages, Addr: addr, Security: sec.security, Instances: o.instances,
		New: demoInstances(cfg, o, stderr), Examples: o.examples})
}

// demoSecurity is the demo's connections' security and the configuration
// keys it came from, which the demo's filters take over.
type demoSecurity struct {
	security stream.Security
	TLS      stream.TLSConfig
	SASL     stream.SASLConfig
}

// demoBroker starts the embedded broker, or with --brokers reads the
// cluster's security settings; it returns the address to produce to and
// read from.
func demoBroker(o demoOptions) (string, demoSecurity, func(), error) {
	if o.brokers != "" {
		k, err := toolKafka(o.config)
		if err != nil {
			return "", demoSecurity{}, nil, err
		}
		sec, err := kafkaSecurity(k)
		return splitList(o.brokers)[0], demoSecurity{sec, k.TLS, k.SASL}, func() {}, err
	}
	if o.config != "" {
		return "", demoSecurity{}, nil, fmt.Errorf("demo --config: only with --brokers (the embedded broker is plaintext)")
	}
	b, err := demo.StartBroker(o.partitions)
	if err != nil {
		return "", demoSecurity{}, nil, err
	}
	return b.Addr(), demoSecurity{}, b.Close, nil
}

func parseDemo(args []string, stderr io.Writer) (demoOptions, error) {
	var o demoOptions
	fs := newFlags("demo", stderr)
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
	fs.IntVar(&o.instances, "instances", 1, "filters sharing one sharded index (README \"Scaling\"); > 1 runs that many in this process")
	fs.IntVar(&o.shards, "index-shards", 8, "index.shards with --instances > 1")
	fs.StringVar(&o.brokers, "brokers", "", "use this cluster (comma-separated brokers) instead of an embedded broker; its topics pages, pages.out, pages.dlq and pages.dups must exist and be empty, or be auto-created")
	fs.StringVar(&o.config, "config", "", "with --brokers: YAML configuration whose kafka.tls and kafka.sasl keys (and DEDUPSTREAM_KAFKA_TLS_*, _SASL_*) secure the connections, as for run")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	if o.pages < 1 || o.partitions < 1 || o.limit < 0 || o.instances < 1 || o.shards < 1 {
		return o, fmt.Errorf("demo: -pages, -partitions, -instances and -index-shards must be positive, -limit not negative")
	}
	if o.instances > 1 {
		o.partitions = max(o.partitions, o.instances+1) // every instance gets input to read
	}
	return o, nil
}

// demoConfig is the filter's configuration for the demo: defaults, the embedded
// broker, and state in a temporary directory unless -state is given.
func demoConfig(o demoOptions, addr string) (Config, func(), error) {
	var cfg Config
	cfg.Kafka.Brokers = []string{addr}
	if o.brokers != "" {
		cfg.Kafka.Brokers = splitList(o.brokers)
	}
	cfg.Kafka.Input, cfg.Kafka.Output = demo.Input, demo.Output
	cfg.Kafka.DeadLetter, cfg.Kafka.Duplicates = demo.DeadLetter, demo.Duplicates
	cfg.Kafka.Group = demo.Group
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
	if o.instances > 1 {
		cfg.Index.Shards = o.shards
		cfg.Kafka.SessionTimeout = 2 * time.Second
	}
	cfg.ensureDefaults()
	cfg.Admin.Listen = "" // the demo runs no admin server
	return cfg, cleanup, cfg.validate()
}

// demoLog is the filter's logger: with -v, info and up on stderr.
func demoLog(verbose bool, stderr io.Writer) (*zap.Logger, error) {
	if !verbose {
		return zap.NewNop(), nil
	}
	return newLogger(LogConfig{Level: "info", Format: "console"}, stderr)
}

// demoInstances builds the demo's filters: with one instance, the filter on
// cfg; with more, instance i's own state directory under cfg.State.Dir,
// its log lines marked with its number.
func demoInstances(cfg Config, o demoOptions, stderr io.Writer) func(i int) (demo.Filter, error) {
	return func(i int) (demo.Filter, error) {
		log, err := demoLog(o.verbose, stderr)
		if err != nil {
			return nil, err
		}
		c := cfg
		if o.instances > 1 {
			c.State.Dir = filepath.Join(cfg.State.Dir, "instance"+strconv.Itoa(i+1))
			log = log.With(zap.Int("instance", i+1))
		}
		a, err := newApp(c, log)
		return demoFilter{a}, err
	}
}

// demoFilter is an app as the demo runs it.
type demoFilter struct{ *app }

func (f demoFilter) Run(ctx context.Context) error { return f.run(ctx) }
func (f demoFilter) Counts() stream.Counts         { return f.pipe.Counts() }
func (f demoFilter) Ready() error                  { return f.ready() }
func (f demoFilter) Close() error                  { return f.close() }
