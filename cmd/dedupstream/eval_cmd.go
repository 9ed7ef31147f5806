package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/eval"
	"github.com/dedupstream/dedupstream/offline/report"
)

// evalOptions are the flags of dedupstream eval.
type evalOptions struct {
	pages, truth, corpus string
	limit                int
	sketch               lsh.Config // base sketch configuration (--config, env, --stopwords, --stem)
	methods              []string
	verifiers            []string // sketch.verify.method of each run; nil → the configured one
	thresholds           []float64
	algorithm            string
}

// cmdEval scores sketch methods and thresholds in process against a labelled corpus
// (dedupstream gen's pages and truth) or the exact oracle's pairs of a real corpus, and
// prints a Markdown table.
func cmdEval(_ context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseEval(args, stderr)
	if err != nil {
		return err
	}
	docs, truth, source, err := evalInput(o)
	if err != nil {
		return err
	}
	opts := eval.Options{Methods: o.methods, Thresholds: o.thresholds, Algorithm: o.algorithm, Config: o.sketch}
	rows, err := eval.RunEach(docs, truth, opts, o.verifiers)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d documents (%s), clusters by %s\n\n", len(docs), source, o.algorithm)
	return eval.WriteMarkdown(stdout, rows)
}

func parseEval(args []string, stderr io.Writer) (evalOptions, error) {
	var o evalOptions
	var methods, verifiers, thresholds, config, stopwords, stem string
	fs := newFlags("eval", stderr)
	fs.StringVar(&config, "config", "", "YAML configuration whose sketch section (with DEDUPSTREAM_SKETCH_* overrides) is the base of every run; method and threshold come from the flags")
	fs.StringVar(&stopwords, "stopwords", "", "sketch.stopwords for every run: none, en, ru, en+ru")
	fs.StringVar(&stem, "stem", "", "sketch.stem for every run: none, en, ru, auto")
	fs.StringVar(&o.pages, "pages", "", "pages JSONL written by dedupstream gen --out (with --truth)")
	fs.StringVar(&o.truth, "truth", "", "ground truth written by dedupstream gen --truth")
	fs.StringVar(&o.corpus, "corpus", "", "real corpus instead; the truth is the exact oracle's pairs at each threshold")
	fs.IntVar(&o.limit, "limit", 5000, "documents to read from --corpus (0: all)")
	fs.StringVar(&methods, "methods", "minhash", "comma-separated sketch methods (minhash, oph, bottomk, modm, full, supershingle, simhash, imatch)")
	fs.StringVar(&verifiers, "verify", "", "comma-separated sketch.verify methods to run each method with (none, full, bottomk, modm, minhash, oph); default: the configured one")
	fs.IntVar(&o.sketch.Verify.NumPerm, "verify-num-perm", 0, "sketch.verify.num_perm (k of a bottomk verifier); 0: the configured one")
	fs.StringVar(&thresholds, "thresholds", "0.8", "comma-separated similarity thresholds")
	fs.StringVar(&o.algorithm, "algorithm", "components", "clustering of the verified pairs (components, center, merge-center, star, ...)")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	cfg, err := loadConfig(config, os.Environ())
	if err != nil {
		return o, err
	}
	verifyPerm := o.sketch.Verify.NumPerm
	o.sketch = cfg.Sketch
	if verifyPerm != 0 {
		o.sketch.Verify.NumPerm = verifyPerm
	}
	if verifiers != "" {
		o.verifiers = strings.Split(verifiers, ",")
	}
	if stopwords != "" {
		o.sketch.StopWords = stopwords
	}
	if stem != "" {
		o.sketch.Stem = stem
	}
	o.methods = strings.Split(methods, ",")
	if o.thresholds, err = report.ParseThresholds(thresholds); err != nil {
		return o, fmt.Errorf("eval: %w", err)
	}
	if (o.corpus == "") == (o.pages == "") || (o.pages != "") != (o.truth != "") {
		return o, fmt.Errorf("eval: give --pages with --truth, or --corpus")
	}
	return o, nil
}

// evalInput loads the documents and their truth, and says where from.
func evalInput(o evalOptions) ([]eval.Doc, eval.TruthFunc, string, error) {
	if o.corpus != "" {
		docs, truth, err := eval.ReadNatural(o.corpus, o.limit, slices.Min(o.thresholds))
		return docs, truth, o.corpus + ", truth: exact oracle", err
	}
	docs, truth, err := eval.ReadLabelled(o.pages, o.truth)
	return docs, truth, o.pages + ", truth: " + o.truth, err
}
