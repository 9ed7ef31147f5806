package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dedupstream/dedupstream/offline/lab/eval"
)

// cmdOfflinePairs compares our duplicate pairs with a reference list, as the
// papers do: pairs on each side, common pairs, pairs only in ours and only in
// theirs, the one-sided pairs written as CSV.
func cmdOfflinePairs(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("offline pairs", stderr)
	ours := fs.String("ours", "", "our pairs: a pair list, a clustering file, or a state directory (required)")
	theirs := fs.String("theirs", "", "the reference pairs, in the same forms (required)")
	oursFormat := fs.String("ours-format", "auto", "auto, pairs, clusters, labels or state")
	theirsFormat := fs.String("theirs-format", "auto", "auto, pairs, clusters, labels or state")
	outDir := fs.String("out-dir", "", "write "+eval.OnlyOursFile+" and "+eval.OnlyTheirsFile+" here")
	maxPairs := fs.Int64("max-pairs", 50_000_000, "refuse a clustering with more pairs than this (they are held in memory)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *ours == "" || *theirs == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "offline pairs: --ours and --theirs are required and no arguments are taken")
		fs.Usage()
		return errUsage
	}
	a, err := eval.ReadPairSide(*ours, *oursFormat, *maxPairs)
	if err != nil {
		return fmt.Errorf("--ours %s: %w", *ours, err)
	}
	b, err := eval.ReadPairSide(*theirs, *theirsFormat, *maxPairs)
	if err != nil {
		return fmt.Errorf("--theirs %s: %w", *theirs, err)
	}
	c, err := eval.ComparePairSides(a, b, *outDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ours:   %d pairs (%s)\ntheirs: %d pairs (%s)\n", c.Ours, a.What, c.Theirs, b.What)
	fmt.Fprintf(stdout, "common: %d\nonly ours: %d\nonly theirs: %d\n", c.Common, c.OnlyOurs, c.OnlyTheirs)
	fmt.Fprintf(stdout, "pair precision %.3f  recall %.3f  F1 %.3f (theirs as the reference)\n", c.Precision(), c.Recall(), c.F1())
	if *outDir != "" {
		fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(*outDir, eval.OnlyOursFile), filepath.Join(*outDir, eval.OnlyTheirsFile))
	}
	return nil
}
