package main

import (
	"context"
	"fmt"
	"io"

	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream/embedded"
)

// toolsClient is the client id of the records gen produces.
const toolsClient = "dedupstream-tools"

// genOptions are the flags of dedupstream gen.
type genOptions struct {
	pages                       int
	corpus                      string
	limit                       int
	opt                         gen.Options
	out, truth, pairs           string
	brokers, topic              string
	config                      string // kafka.tls and kafka.sasl, as run reads them
	copyRate, editRate, russian float64
	kinds                       string
}

// cmdGen writes labelled near-duplicate pages: JSONL and/or a Kafka topic, the
// ground-truth clustering and the exact overlap of every (copy, origin) pair.
func cmdGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseGen(args, stderr)
	if err != nil {
		return err
	}
	pages, err := eval.Generate(o.opt, o.pages, o.corpus, o.limit)
	if err != nil {
		return err
	}
	if err := writeFile(o.out, func(w io.Writer) error { return eval.WritePages(w, pages) }); err != nil {
		return err
	}
	if err := writeFile(o.truth, func(w io.Writer) error { return eval.WriteTruth(w, pages) }); err != nil {
		return err
	}
	if o.pairs != "" {
		cps, err := eval.Exact(pages, eval.Sets(eval.CleanPages(pages)))
		if err != nil {
			return err
		}
		if err := writeFile(o.pairs, func(w io.Writer) error { return eval.WriteCopyPairs(w, cps) }); err != nil {
			return err
		}
	}
	if o.topic != "" {
		msgs, err := eval.Messages(pages)
		if err != nil {
			return err
		}
		sec, err := toolSecurity(o.config)
		if err != nil {
			return err
		}
		if err := embedded.Produce(ctx, sec.Transport(toolsClient), o.brokers, o.topic, msgs); err != nil {
			return err
		}
	}
	copies := 0
	for _, p := range pages {
		if p.Kind != gen.Original {
			copies++
		}
	}
	fmt.Fprintf(stdout, "gen: %d pages, %d near-copies\n", len(pages), copies)
	return nil
}

func parseGen(args []string, stderr io.Writer) (genOptions, error) {
	var o genOptions
	fs := newFlags("gen", stderr)
	fs.IntVar(&o.pages, "pages", 1000, "synthetic pages to generate (without --corpus)")
	fs.StringVar(&o.corpus, "corpus", "", "real documents to wrap and copy: a directory, a .jsonl file, or a Reuters/20 Newsgroups .tar.gz")
	fs.IntVar(&o.limit, "limit", 0, "documents to read from --corpus (0: all)")
	fs.Uint64Var(&o.opt.Seed, "seed", 1, "generator seed")
	fs.Float64Var(&o.copyRate, "copy-rate", 0.3, "share of pages that are near-copies, [0, 1]")
	fs.Float64Var(&o.editRate, "edit-rate", 0.03, "share of words edited in an edited copy, [0, 1]")
	fs.Float64Var(&o.russian, "russian", 0.2, "share of synthetic originals in Russian, [0, 1]")
	fs.Float64Var(&o.opt.Runs, "runs", 0, "share of synthetic pages ending in a long run of one token (=3D or =09 quoted-printable, a table of equal cells), [0, 1]")
	fs.StringVar(&o.out, "out", "", "JSONL file of pages (id, url, html, origin, kind)")
	fs.StringVar(&o.truth, "truth", "", "ground-truth file: id<TAB>cluster")
	fs.StringVar(&o.pairs, "pairs", "", "TSV of every (copy, origin) pair with its exact resemblance and containments")
	fs.StringVar(&o.brokers, "brokers", "localhost:9092", "comma-separated Kafka brokers (with --topic)")
	fs.StringVar(&o.config, "config", "", "YAML configuration whose kafka.tls and kafka.sasl keys (and DEDUPSTREAM_KAFKA_TLS_*, _SASL_*) secure --topic's connections, as for run")
	fs.StringVar(&o.topic, "topic", "", "Kafka topic to produce the pages to as JSON records")
	fs.StringVar(&o.kinds, "kinds", "", "near-copy kinds to make, comma-separated, or all (default: mirror,edited,truncated,exact,reordered; also quoted, noisy, plaintext, excerpt)")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	o.opt.CopyRate, o.opt.EditRate, o.opt.Russian = orNone(o.copyRate), orNone(o.editRate), orNone(o.russian)
	if o.kinds != "" {
		ks, err := gen.ParseKinds(o.kinds)
		if err != nil {
			return o, err
		}
		o.opt.Kinds = ks
	}
	if err := o.opt.Validate(); err != nil {
		return o, err
	}
	if o.pages < 1 || o.limit < 0 {
		return o, fmt.Errorf("gen: --pages must be positive, --limit not negative")
	}
	if o.out == "" && o.topic == "" {
		return o, fmt.Errorf("gen: nothing to write: give --out or --topic")
	}
	return o, nil
}

// orNone maps a flag's 0 to gen.Options' "none" (negative), since there 0 means default.
func orNone(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}
