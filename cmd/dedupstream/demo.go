package main

import (
	"context"
	"fmt"
	"io"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/offline/lab/demo"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/confkey"
	"github.com/dedupstream/dedupstream/stream/logging"
	"github.com/dedupstream/dedupstream/stream/shard"
)

// demoOptions are the demo's flags.
type demoOptions struct {
	pages      demo.Options        // Pages, Corpus, Limit, Seed
	filters    demo.FilterSettings // Threshold, Mode, StateDir, Instances, Shards
	partitions int
	examples   int
	verbose    bool
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
	pages, err := demo.Pages(o.pages)
	if err != nil {
		return err
	}
	addr, sec, closeBroker, err := demoBroker(o)
	if err != nil {
		return err
	}
	defer closeBroker()
	o.filters.Brokers = []string{addr}
	if o.brokers != "" {
		o.filters.Brokers = confkey.SplitList(o.brokers)
	}
	cfg, cleanup, err := demo.Config(o.filters)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg.Kafka.TLS, cfg.Kafka.SASL = sec.TLS, sec.SASL
	method, err := cfg.NewMethod()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "dedupstream demo: %d records (%s) through the broker at %s\n", pages.Len(), pages.Source, addr)
	fmt.Fprintf(stdout, "  sketch %s, threshold %.2f, mode %s, %d partitions, state %s\n",
		method.Version(), cfg.Sketch.Params.Threshold, cfg.Mode, o.partitions, cfg.State.Dir)
	if o.filters.Instances > 1 {
		fmt.Fprintf(stdout, "  %d instances sharing one index of %d shards (topics %s, %s)\n",
			o.filters.Instances, o.filters.Shards, shard.SequenceTopic(cfg.Kafka.Group), shard.AnswersTopic(cfg.Kafka.Group))
	}
	fmt.Fprintln(stdout)
	log := func() (*zap.Logger, error) { return demoLog(o.verbose, stderr) }
	return demo.Execute(ctx, stdout, demo.Setup{Pages: pages, Addr: addr, Security: sec.security, Instances: o.filters.Instances,
		New: demo.Instances(cfg, o.filters.Instances, process(), log), Examples: o.examples})
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
		return confkey.SplitList(o.brokers)[0], demoSecurity{sec, k.TLS, k.SASL}, func() {}, err
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
	fs.IntVar(&o.pages.Pages, "pages", 3000, "generated pages to produce (without --corpus)")
	fs.StringVar(&o.pages.Corpus, "corpus", "", "real documents to wrap as pages: a directory, a .jsonl file, or ../shared/corpora/{reuters21578,20news-bydate}.tar.gz")
	fs.IntVar(&o.pages.Limit, "limit", 2000, "documents to read from --corpus (0: all)")
	fs.Uint64Var(&o.pages.Seed, "seed", 1, "seed of the page generator")
	fs.IntVar(&o.partitions, "partitions", 2, "partitions of the demo topics")
	fs.Float64Var(&o.filters.Threshold, "threshold", 0.8, "Jaccard similarity threshold")
	fs.StringVar(&o.filters.Mode, "mode", "tag", "tag or drop")
	fs.StringVar(&o.filters.StateDir, "state", "", "state directory to keep (default: a temporary one, removed at exit)")
	fs.IntVar(&o.examples, "examples", 6, "example duplicate pairs to print")
	fs.BoolVar(&o.verbose, "v", false, "show the filter's logs")
	fs.IntVar(&o.filters.Instances, "instances", 1, "filters sharing one sharded index (README \"Scaling\"); > 1 runs that many in this process")
	fs.IntVar(&o.filters.Shards, "index-shards", 8, "index.shards with --instances > 1")
	fs.StringVar(&o.brokers, "brokers", "", "use this cluster (comma-separated brokers) instead of an embedded broker; its topics pages, pages.out, pages.dlq and pages.dups must exist and be empty, or be auto-created")
	fs.StringVar(&o.config, "config", "", "with --brokers: YAML configuration whose kafka.tls and kafka.sasl keys (and DEDUPSTREAM_KAFKA_TLS_*, _SASL_*) secure the connections, as for run")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	if o.pages.Pages < 1 || o.partitions < 1 || o.pages.Limit < 0 || o.filters.Instances < 1 || o.filters.Shards < 1 {
		return o, fmt.Errorf("demo: -pages, -partitions, -instances and -index-shards must be positive, -limit not negative")
	}
	if o.filters.Instances > 1 {
		o.partitions = max(o.partitions, o.filters.Instances+1) // every instance gets input to read
	}
	return o, nil
}

// demoLog is the filter's logger: with -v, info and up on stderr.
func demoLog(verbose bool, stderr io.Writer) (*zap.Logger, error) {
	if !verbose {
		return zap.NewNop(), nil
	}
	return logging.New(logging.Config{Level: "info", Format: "console"}, stderr)
}
