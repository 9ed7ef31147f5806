package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/cluster"
	"github.com/dedupstream/dedupstream/offline/quality"
	"github.com/dedupstream/dedupstream/state"
)

// cmdOfflineCluster re-clusters a stopped filter's state: the graph of verified
// near-duplicate pairs, clustered by the chosen algorithm, optionally written
// back and scored against a ground truth.
func cmdOfflineCluster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("offline cluster", stderr)
	algo := fs.String("algorithm", "star", "clustering: "+strings.Join(cluster.Names(), ", "))
	writeBack := fs.Bool("write-back", false, "store each document's cluster id in state (later verdicts carry it in dedup.cluster)")
	truthFile := fs.String("truth", "", "ground truth (one cluster per line, or id<TAB>cluster): print Pr, Re, F1 and CPr")
	top := fs.Int("top", 10, "largest clusters to list")
	startProgress := progressFlag(fs, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := load()
	if err != nil {
		return err
	}
	if m := cfg.Sketch.Method; m != "" && m != "minhash" {
		return fmt.Errorf("offline cluster: sketch.method %q: re-clustering reads MinHash signatures only", m)
	}
	so := cfg.State
	so.MaxCandidates, so.MaxBucket, so.GCInterval = max(so.MaxCandidates, 1000), max(so.MaxBucket, 1000), -1
	so.SketchVersion = cfg.Sketch.Params.Version()
	st, err := state.Open(so)
	if err != nil {
		return err
	}
	bar := startProgress("recluster", "documents", int64(st.Stats().Docs))
	res, err := offline.Recluster(ctx, st, lsh.NewSketcher(cfg.Sketch.Params), offline.Options{
		Algorithm: *algo, Threshold: cfg.Sketch.Params.Threshold, WriteBack: *writeBack,
		Progress: func(n int) { bar.Set(int64(n)) },
	})
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

// printClusters writes totals, a size histogram and the largest clusters with
// their earliest document.
func printClusters(w io.Writer, res *offline.Result, algo string, top int) {
	sizes := res.Clustering.Sizes()
	fmt.Fprintf(w, "%s: %d documents, %d verified pairs, %d clusters in %s\n",
		algo, len(res.Seqs), res.Graph.M(), res.Clustering.K, res.Elapsed.Round(1e6))
	bounds := []int{1, 2, 5, 10, 100, 1 << 30}
	counts := make([]int, len(bounds))
	for _, n := range sizes {
		counts[sort.SearchInts(bounds, int(n))]++
	}
	fmt.Fprintln(w, "cluster sizes:")
	for i, b := range bounds {
		lo := 1
		if i > 0 {
			lo = bounds[i-1] + 1
		}
		label := fmt.Sprintf("%d–%d", lo, b)
		switch {
		case lo == b:
			label = fmt.Sprint(b)
		case i == len(bounds)-1:
			label = fmt.Sprintf("> %d", bounds[i-1])
		}
		fmt.Fprintf(w, "  %-8s %8d\n", label, counts[i])
	}
	printTop(w, res, sizes, top)
}

func printTop(w io.Writer, res *offline.Result, sizes []int32, top int) {
	labels := make([]int, len(sizes))
	for i := range labels {
		labels[i] = i
	}
	sort.SliceStable(labels, func(a, b int) bool { return sizes[labels[a]] > sizes[labels[b]] })
	first := make(map[int32]int) // label → earliest node
	for node := len(res.Seqs) - 1; node >= 0; node-- {
		first[res.Clustering.Labels[node]] = node
	}
	fmt.Fprintf(w, "largest clusters (size, cluster id, earliest document, URL):\n")
	for _, l := range labels[:min(top, len(labels))] {
		n := first[int32(l)]
		fmt.Fprintf(w, "  %6d  %-8d %s %s\n", sizes[l], res.ClusterIDs[l], res.IDs[n], res.URLs[n])
	}
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
