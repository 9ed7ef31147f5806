package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/state"
)

// closedAlgorithm is the --algorithm of the closed-set clusters.
const closedAlgorithm = "closed"

// closedFlags are the flags of offline cluster --algorithm closed.
type closedFlags struct {
	o   offline.ClosedOptions
	out string
}

func (c *closedFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&c.o.MinCommon, "min-common", 0, "closed: fingerprints every member of a set shares, at least 1 (required; e.g. 100 of minhash's 128)")
	fs.BoolVar(&c.o.Maximal, "maximal", false, "closed: keep only maximal sets")
	fs.IntVar(&c.o.MaxSets, "max-sets", 0, "closed: stop after this many sets (0: no limit)")
	fs.Int64Var(&c.o.MaxMemory, "max-memory", 0, "closed: stop mining a component whose working memory would exceed this many bytes (0: no limit)")
	fs.Int64Var(&c.o.SortMemory, "sort-memory", 0, "closed: bytes of fingerprint pairs sorted per pass over the state (0: 256 MiB)")
	fs.DurationVar(&c.o.Timeout, "timeout", 0, "closed: stop mining after this long (0: no limit)")
	fs.StringVar(&c.out, "sets-out", "", "closed: write the sets here, as CSV (.csv) or JSON lines (any other name)")
}

func (c *closedFlags) validate() error {
	if c.o.MinCommon < 1 {
		return errors.New("--algorithm closed needs --min-common of at least 1")
	}
	if c.o.MaxSets < 0 || c.o.MaxMemory < 0 || c.o.SortMemory < 0 || c.o.Timeout < 0 {
		return errors.New("--max-sets, --max-memory, --sort-memory and --timeout must not be negative")
	}
	return nil
}

// runClosed mines the closed-set clusters, reports the context and how far
// mining got, and writes the sets out if asked.
func runClosed(ctx context.Context, st *state.Store, m lsh.Method, c closedFlags, writeBack bool, progress func(int), w io.Writer) (*offline.Result, error) {
	c.o.WriteBack, c.o.Progress = writeBack, progress
	res, err := offline.ClosedClusters(ctx, st, m, c.o)
	if err != nil {
		return nil, err
	}
	res.WriteSummary(w, c.o)
	if c.out != "" {
		if err := res.WriteFile(c.out); err != nil {
			return nil, err
		}
	}
	return &res.Result, nil
}
