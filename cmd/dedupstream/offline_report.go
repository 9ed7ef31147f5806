package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
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
	thresholds, err := report.ParseThresholds(*list)
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
	r.WriteSummary(stdout, *out)
	return nil
}

// openReclusterState opens the state of a stopped filter for re-clustering
// (offline.OpenState) with the configured sketch method, whose resemblance
// threshold is lowered to threshold (when > 0; the method's index keys do
// not depend on it).
func openReclusterState(cfg Config, threshold float64) (*state.Store, lsh.Method, error) {
	if threshold > 0 {
		cfg.Sketch.Params.Threshold = threshold
	}
	method, err := cfg.NewMethod()
	if err != nil {
		return nil, nil, err
	}
	st, err := offline.OpenState(cfg.State.ForMethod(method))
	return st, method, err
}
