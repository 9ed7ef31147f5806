package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/lsh/explain"
	"github.com/dedupstream/dedupstream/lsh/vocab"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/filter"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// cmdCompare prints every measure and every method's estimate for two
// documents: "why was this a duplicate?".
func cmdCompare(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("compare", stderr)
	vocabPath := fs.String("vocab", "", "vocabulary file: enables tf-idf cosine, imatch and simhash idf (default: config key vocabulary)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: dedupstream compare [flags] A B\n\nA and B are files (HTML or text; one JSON record each with --record true), or ids or URLs of documents in --state.")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	cfg, err := load()
	if err != nil {
		return err
	}
	if *vocabPath != "" {
		cfg.Vocabulary = *vocabPath
	}
	var vocab *vocab.Vocabulary // read once: the configured method and the estimates share it
	if !cfg.Record.Enabled {
		if vocab, err = filter.ReadVocabulary(cfg.Vocabulary); err != nil {
			return err
		}
	}
	method, err := cfg.MethodWith(vocab)
	if err != nil {
		return err
	}
	if rm, ok := method.(*lsh.RecordMethod); ok {
		return compareRecords(stdout, cfg, rm, fs.Arg(0), fs.Arg(1))
	}
	docs, err := compareDocs(cfg, method, prepareFile(cfg, method), fs.Arg(0), fs.Arg(1))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "A: %s\nB: %s\n\n", docs[0].Name, docs[1].Name)
	if docs[0].Text == nil || docs[1].Text == nil {
		fmt.Fprintln(stdout, "exact measures: need both documents as files (state keeps sketches, not text)")
		return explain.WriteStored(stdout, method, docs)
	}
	explain.WriteExact(stdout, cfg.Sketch.Shingling(), vocab, docs[0].Text, docs[1].Text)
	fmt.Fprintln(stdout)
	return explain.WriteEstimates(stdout, cfg.Sketch, vocab, docs[0].Text, docs[1].Text)
}

// compareDocs reads each argument as a file, whose contents fromFile turns
// into a text and (if it makes one) a sketch, or, failing that, finds it in
// the state directory by id or URL.
func compareDocs(cfg Config, method lsh.Method, fromFile func([]byte) (text, sketch []byte, err error), args ...string) ([]explain.Doc, error) {
	docs := make([]explain.Doc, len(args))
	var missing []int
	for i, arg := range args {
		b, err := os.ReadFile(arg)
		switch {
		case err == nil:
			text, sketch, err := fromFile(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", arg, err)
			}
			docs[i] = explain.Doc{Name: arg + " (file)", Text: text, Sketch: sketch}
		case errors.Is(err, os.ErrNotExist):
			missing = append(missing, i)
		default:
			return nil, err
		}
	}
	if len(missing) == 0 {
		return docs, nil
	}
	return docs, findStored(cfg, method, args, docs, missing)
}

// prepareFile returns the reader of a file's contents: prepared as the
// stream prepares a message with that value (decoded, cleaned and sketched
// with m), or the input error that would dead-letter it.
func prepareFile(cfg Config, m lsh.Method) func([]byte) (text, sketch []byte, err error) {
	return prepare.New(cfg.Decode, clean.New(cfg.Clean), m).PrepareValue
}

// findStored fills docs[i] for each i in missing with the stored document
// whose id or URL is args[i].
func findStored(cfg Config, method lsh.Method, args []string, docs []explain.Doc, missing []int) error {
	dir := cfg.State.Dir
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%s: not a file, and no state directory to look it up in: %w", args[missing[0]], err)
	}
	st, err := state.Open(state.Options{Dir: dir, GCInterval: -1}.ForMethod(method))
	if err != nil {
		return err
	}
	defer st.Close()
	keys := make([]string, len(missing))
	for k, i := range missing {
		keys[k] = args[i]
	}
	found, err := st.FindByIDOrURL(keys...)
	if err != nil {
		return err
	}
	for k, i := range missing {
		d := found[k]
		if d == nil {
			return fmt.Errorf("%s: neither a file nor an id or URL in state %s", args[i], dir)
		}
		docs[i] = explain.Doc{Name: fmt.Sprintf("%s (state %s, seq %d, id %s)", args[i], dir, d.Seq, d.ID), Sketch: d.Sketch}
	}
	return nil
}
