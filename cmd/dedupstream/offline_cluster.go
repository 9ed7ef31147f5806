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
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := load()
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
		if cfg.State.Dir, err = restoreBackup(*backup); err != nil {
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
		printClusters(stdout, res, *algo, *top)
		if *truthFile != "" {
			err = printQuality(stdout, res, *truthFile)
		}
	}
	return errors.Join(err, st.Close())
}

// restoreBackup restores a backup file into a new temporary directory.
func restoreBackup(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dir, err := os.MkdirTemp("", "dedupstream-backup-")
	if err != nil {
		return "", err
	}
	if err := state.Restore(dir, f); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("restore %s: %w", path, err)
	}
	return dir, nil
}

// printClusters writes totals, then the size histogram and the largest
// clusters with their earliest document (report.WriteText).
func printClusters(w io.Writer, res *offline.Result, algo string, top int) {
	if res.Graph != nil {
		fmt.Fprintf(w, "%s: %d documents, %d verified pairs, %d clusters in %s\n",
			algo, len(res.Seqs), res.Graph.M(), res.Clustering.K, res.Elapsed.Round(1e6))
	} else {
		fmt.Fprintf(w, "%s: %d documents, %d clusters in %s\n", algo, len(res.Seqs), res.Clustering.K, res.Elapsed.Round(1e6))
	}
	if res.Capped > 0 {
		fmt.Fprintf(w, "%d candidate lookups were cut by state.max_bucket or state.max_candidates (at least 1000 here)\n", res.Capped)
	}
	report.WriteText(w, res, top)
}

func printQuality(w io.Writer, res *offline.Result, truthFile string) error {
	f, err := os.Open(truthFile)
	if err != nil {
		return err
	}
	defer f.Close()
	truth, err := quality.ReadClustering(f, quality.FormatAuto)
	if err != nil {
		return fmt.Errorf("truth %s: %w", truthFile, err)
	}
	found, err := quality.FromLabels(res.IDs, res.Clustering.Labels)
	if err != nil {
		return err
	}
	s := quality.Compare(truth, found)
	fmt.Fprintf(w, "against %s: Pr %.3f  Re %.3f  F1 %.3f  CPr %.3f  (pair P %.3f R %.3f)\n",
		truthFile, s.Precision, s.Recall, s.F1, s.CPr, s.PairPrecision, s.PairRecall)
	return nil
}
