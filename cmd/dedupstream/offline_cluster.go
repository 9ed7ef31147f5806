package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/algo/cluster"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
	"github.com/dedupstream/dedupstream/offline/report"
	"github.com/dedupstream/dedupstream/state"
)

// cmdOfflineCluster re-clusters a stopped filter's state (or a backup of one):
// the graph of verified near-duplicate pairs clustered by the chosen
// algorithm, or the closed-set clusters of the fingerprint context;
// optionally written back and scored against a ground truth.
func cmdOfflineCluster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("offline cluster", stderr)
	algo := fs.String("algorithm", "star", "clustering: "+strings.Join(cluster.Names(), ", ")+", or closed (closed sets of documents sharing --min-common fingerprints)")
	writeBack := fs.Bool("write-back", false, "store each document's cluster id in state (later verdicts carry it in dedup.cluster)")
	truthFile := fs.String("truth", "", "ground truth (one cluster per line, or id<TAB>cluster): print Pr, Re, F1 and CPr")
	top := fs.Int("top", 10, "largest clusters to list")
	startProgress := progressFlag(fs, stderr)
	backup := fs.String("backup", "", "read this backup (dedupstream state backup) instead of --state: restored into a temporary directory")
	var co closedFlags
	co.register(fs)
	cfg, err := parseConfig(fs, load, args)
	if err != nil {
		return err
	}
	if *algo == closedAlgorithm {
		if err := co.validate(); err != nil {
			fmt.Fprintln(stderr, "offline cluster:", err)
			return errUsage
		}
	}
	if *backup != "" {
		if cfg.State.Dir, err = state.RestoreTemp(*backup); err != nil {
			return err
		}
		defer os.RemoveAll(cfg.State.Dir)
	}
	st, method, err := openReclusterState(cfg, 0)
	if err != nil {
		return err
	}
	bar := startProgress("recluster", "documents", int64(st.Stats().Docs))
	progress := func(n int) { bar.Set(int64(n)) }
	var res *offline.Result
	if *algo == closedAlgorithm {
		res, err = runClosed(ctx, st, method, co, *writeBack, progress, stdout)
	} else {
		res, err = offline.ReclusterMethod(ctx, st, method, offline.Options{Algorithm: *algo, WriteBack: *writeBack, Progress: progress})
	}
	if err == nil {
		bar.Set(int64(len(res.Seqs)))
		bar.Done()
		report.WriteClusters(stdout, res, *algo, *top)
		if *truthFile != "" {
			err = printQuality(stdout, res, *truthFile)
		}
	}
	return errors.Join(err, st.Close())
}

// printQuality scores res against the ground truth in truthFile.
func printQuality(w io.Writer, res *offline.Result, truthFile string) error {
	s, err := quality.CompareFile(truthFile, res.IDs, res.Clustering.Labels)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "against %s: Pr %.3f  Re %.3f  F1 %.3f  CPr %.3f  (pair P %.3f R %.3f)\n",
		truthFile, s.Precision, s.Recall, s.F1, s.CPr, s.PairPrecision, s.PairRecall)
	return nil
}
