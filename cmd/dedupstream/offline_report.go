package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/offline/report"
	"github.com/dedupstream/dedupstream/state"
)

// cmdOfflineReport re-clusters a stopped filter's state at several thresholds
// and writes the histogram figure, every cluster as JSON and CSV, and report.html.
func cmdOfflineReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("offline report", stderr)
	algo := fs.String("algorithm", "star", "clustering: "+strings.Join(cluster.Names(), ", "))
	list := fs.String("thresholds", "0.5,0.6,0.7,0.8,0.9", "comma-separated similarity thresholds in (0, 1]")
	out := fs.String("out", "report", "directory for report.html, histogram.svg/.png, clusters.json/.csv")
	top := fs.Int("top", 10, "largest clusters report.html lists per threshold")
	startProgress := progressFlag(fs, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	thresholds, err := parseThresholds(*list)
	if err != nil {
		fmt.Fprintln(stderr, "offline report:", err)
		return errUsage
	}
	slices.Sort(thresholds)
	thresholds = slices.Compact(thresholds)
	cfg, err := load()
	if err != nil {
		return err
	}
	st, method, err := openReclusterState(cfg, thresholds[0])
	if err != nil {
		return err
	}
	bar := startProgress("recluster", "documents", int64(st.Stats().Docs))
	res, err := offline.ReclusterMethod(ctx, st, method, offline.Options{
		Algorithm: *algo, Threshold: thresholds[0], Progress: func(n int) { bar.Set(int64(n)) },
	})
	var r *report.Report
	if err == nil {
		bar.Set(int64(len(res.Seqs)))
		bar.Done()
		levels := startProgress("cluster thresholds", "thresholds", int64(len(thresholds)))
		r, err = report.Build(ctx, st, res, report.Options{Thresholds: thresholds, Algorithm: *algo,
			Sketch: method.Version(), Top: *top, Progress: func(n int) { levels.Set(int64(n)) }})
		levels.Done()
	}
	if err = errors.Join(err, st.Close()); err != nil {
		return err
	}
	if err := r.WriteDir(*out); err != nil {
		return err
	}
	printReport(stdout, r, *out)
	return nil
}

// parseThresholds reads a comma-separated list of thresholds in (0, 1], in
// the order given.
func parseThresholds(s string) ([]float64, error) {
	var ts []float64
	for f := range strings.SplitSeq(s, ",") {
		t, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(t > 0 && t <= 1) {
			return nil, fmt.Errorf("--thresholds %q: %q is not a number in (0, 1]", s, f)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// openReclusterState opens the state of a stopped filter for re-clustering
// with the configured sketch method, whose resemblance threshold is lowered
// to threshold (when > 0; the method's index keys do not depend on it), and
// with the candidate caps raised so that popular buckets are read whole.
func openReclusterState(cfg Config, threshold float64) (*state.Store, lsh.Method, error) {
	if threshold > 0 {
		cfg.Sketch.Params.Threshold = threshold
	}
	method, err := cfg.newMethod()
	if err != nil {
		return nil, nil, err
	}
	if err := notShardedRoot(cfg.State.Dir); err != nil {
		return nil, nil, err
	}
	so := cfg.State.ForMethod(method)
	so.MaxCandidates, so.MaxBucket, so.GCInterval = max(so.MaxCandidates, 1000), max(so.MaxBucket, 1000), -1
	st, err := state.Open(so)
	return st, method, err
}

// shardName is a shard directory's name under shards/ (shard.ShardDir).
var shardName = regexp.MustCompile(`^[0-9]{3,}$`)

// notShardedRoot refuses the state directory of a sharded instance, which
// holds its shards under shards/NNN and no documents of its own, and the
// directory of one shard: offline re-clustering reads one state, a shard
// holds only the documents whose keys it owns (each document in several
// shards), and with minhash or oph it keeps their 8-bit compact signatures,
// from which the index keys cannot be derived again.
func notShardedRoot(dir string) error {
	if dir == "" {
		return nil
	}
	const collect = "collect the whole index from the sequence log first, with the filter's configuration: " +
		"'dedupstream state collect --config FILE --state NEWDIR', then re-cluster NEWDIR"
	if fi, err := os.Stat(filepath.Join(dir, "shards")); err == nil && fi.IsDir() {
		return fmt.Errorf("state %s is a sharded filter's (index.shards > 0), which holds only the shards it owned: %s", dir, collect)
	}
	if clean := filepath.Clean(dir); filepath.Base(filepath.Dir(clean)) == "shards" && shardName.MatchString(filepath.Base(clean)) {
		return fmt.Errorf("state %s is one shard of a sharded filter (index.shards > 0), which holds only the documents whose keys it owns: %s", dir, collect)
	}
	return nil
}

// printReport writes one line of totals per threshold and where the files are.
func printReport(w io.Writer, r *report.Report, dir string) {
	fmt.Fprintf(w, "%s: %d documents\n", r.Algorithm, r.Documents)
	fmt.Fprintf(w, "  %-9s %8s %8s %10s %10s %7s\n", "threshold", "pairs", "clusters", "singletons", "duplicates", "largest")
	for _, l := range r.Levels {
		t := l.Totals
		fmt.Fprintf(w, "  %-9g %8d %8d %10d %10d %7d\n", l.Threshold, t.Pairs, t.Clusters, t.Singletons, t.Duplicates, t.Largest)
	}
	fmt.Fprintf(w, "wrote %s (and %s, %s, %s, %s)\n", filepath.Join(dir, report.FileHTML),
		report.FileSVG, report.FilePNG, report.FileJSON, report.FileCSV)
}
