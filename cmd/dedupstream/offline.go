package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/dedupstream/dedupstream/offline/algo/fim"
)

const offlineUsage = `usage: dedupstream offline <command> [flags]

commands:
  cluster  re-cluster a stopped filter's state or a backup (star, center, merge-center, ricochet, ..., closed sets), write ids back
  fim      mine the frequent closed (or maximal) itemsets of a FIMI file
  report   re-cluster at several thresholds: histogram figure, clusters as JSON/CSV, report.html
  pairs    compare two pair lists or clusterings: common pairs, pairs only in each (CSV)

"dedupstream offline <command> -h" lists a command's flags.
`

// cmdOffline dispatches the offline commands.
func cmdOffline(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, offlineUsage)
		return errUsage
	}
	cmds := map[string]command{"cluster": cmdOfflineCluster, "fim": cmdOfflineFIM, "report": cmdOfflineReport, "pairs": cmdOfflinePairs}
	if cmd, ok := cmds[args[0]]; ok {
		return cmd(ctx, args[1:], stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, offlineUsage)
		return flag.ErrHelp
	default:
		fmt.Fprintf(stderr, "dedupstream offline: unknown command %q\n\n%s", args[0], offlineUsage)
		return errUsage
	}
}

// cmdOfflineFIM mines a FIMI file and reports the number of itemsets and the
// time taken, optionally writing the itemsets out.
func cmdOfflineFIM(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("offline fim", stderr)
	input := fs.String("input", "", "FIMI file: one transaction per line, space-separated item ids (required)")
	var o fim.Options
	fs.IntVar(&o.MinSupport, "min-support", 0, "absolute minimum support, at least 1 (required)")
	fs.BoolVar(&o.Maximal, "maximal", false, "mine maximal instead of closed itemsets")
	out := fs.String("out", "", `write the itemsets here, one per line as "item item (support)"`)
	fs.DurationVar(&o.Timeout, "timeout", 0, "stop mining after this long (0: no limit)")
	fs.IntVar(&o.MaxItemsets, "max-itemsets", 0, "stop after this many itemsets (0: no limit)")
	fs.Int64Var(&o.MaxMemory, "max-memory", 0, "stop when working memory would exceed this many bytes (0: no limit)")
	startProgress := progressFlag(fs, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *input == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "offline fim: --input is required and no arguments are taken")
		fs.Usage()
		return errUsage
	}
	if err := o.Validate(); err != nil {
		fmt.Fprintln(stderr, "offline fim:", err)
		return errUsage
	}
	ds, err := readFIMIFile(*input, stdout)
	if err != nil {
		return err
	}
	bar := startProgress("mine", "itemsets", 0)
	o.Progress = func(n int64) { bar.Set(n) }
	res, err := fim.MineToFile(ctx, ds, o, *out)
	if err != nil {
		return err
	}
	bar.Set(res.Itemsets)
	bar.Done()
	kind := "closed"
	if o.Maximal {
		kind = "maximal"
	}
	if res.Complete {
		fmt.Fprintf(stdout, "%s itemsets: %d (complete) in %.3fs\n", kind, res.Itemsets, res.Elapsed.Seconds())
	} else {
		fmt.Fprintf(stdout, "%s itemsets: %d (incomplete) stopped after %.3fs: %s\n", kind, res.Itemsets, res.Elapsed.Seconds(), res.Stopped)
	}
	return nil
}

// readFIMIFile reads a FIMI file and says how big it was and how long it took.
func readFIMIFile(path string, stdout io.Writer) (*fim.Dataset, error) {
	start := time.Now()
	ds, err := fim.ReadFIMIFile(path)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "read %s: %d transactions, %d item occurrences in %.3fs\n",
		path, ds.Len(), ds.Size(), time.Since(start).Seconds())
	return ds, nil
}
