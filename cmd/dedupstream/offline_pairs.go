package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
	"github.com/dedupstream/dedupstream/state"
)

// Names of the one-sided pair files offline pairs writes.
const (
	onlyOursFile   = "only-ours.csv"
	onlyTheirsFile = "only-theirs.csv"
)

// pairSide is one side of a pair comparison: where it came from and its pairs.
type pairSide struct {
	what  string // "pair list", "clustering of N documents in K clusters", …
	pairs []quality.Pair
}

// cmdOfflinePairs compares our duplicate pairs with a reference list, as the
// papers do: pairs on each side, common pairs, pairs only in ours and only in
// theirs, the one-sided pairs written as CSV.
func cmdOfflinePairs(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("offline pairs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ours := fs.String("ours", "", "our pairs: a pair list, a clustering file, or a state directory (required)")
	theirs := fs.String("theirs", "", "the reference pairs, in the same forms (required)")
	oursFormat := fs.String("ours-format", "auto", "auto, pairs, clusters, labels or state")
	theirsFormat := fs.String("theirs-format", "auto", "auto, pairs, clusters, labels or state")
	outDir := fs.String("out-dir", "", "write "+onlyOursFile+" and "+onlyTheirsFile+" here")
	maxPairs := fs.Int64("max-pairs", 50_000_000, "refuse a clustering with more pairs than this (they are held in memory)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *ours == "" || *theirs == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "offline pairs: --ours and --theirs are required and no arguments are taken")
		fs.Usage()
		return errUsage
	}
	a, err := readSide(*ours, *oursFormat, *maxPairs)
	if err != nil {
		return fmt.Errorf("--ours %s: %w", *ours, err)
	}
	b, err := readSide(*theirs, *theirsFormat, *maxPairs)
	if err != nil {
		return fmt.Errorf("--theirs %s: %w", *theirs, err)
	}
	c, err := comparePairSides(a, b, *outDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ours:   %d pairs (%s)\ntheirs: %d pairs (%s)\n", c.Ours, a.what, c.Theirs, b.what)
	fmt.Fprintf(stdout, "common: %d\nonly ours: %d\nonly theirs: %d\n", c.Common, c.OnlyOurs, c.OnlyTheirs)
	fmt.Fprintf(stdout, "pair precision %.3f  recall %.3f  F1 %.3f (theirs as the reference)\n", c.Precision(), c.Recall(), c.F1())
	if *outDir != "" {
		fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(*outDir, onlyOursFile), filepath.Join(*outDir, onlyTheirsFile))
	}
	return nil
}

// comparePairSides counts the pairs and, with a directory, writes the one-sided ones.
func comparePairSides(a, b pairSide, dir string) (quality.PairCounts, error) {
	if dir == "" {
		return quality.ComparePairs(a.pairs, b.pairs, nil, nil)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return quality.PairCounts{}, err
	}
	var files []*os.File
	var writers []*quality.PairWriter
	for _, name := range []string{onlyOursFile, onlyTheirsFile} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return quality.PairCounts{}, errors.Join(err, closeAll(files))
		}
		files, writers = append(files, f), append(writers, quality.NewPairWriter(f))
	}
	c, err := quality.ComparePairs(a.pairs, b.pairs, writers[0].Write, writers[1].Write)
	for _, w := range writers {
		err = errors.Join(err, w.Flush())
	}
	return c, errors.Join(err, closeAll(files))
}

func closeAll(files []*os.File) error {
	var err error
	for _, f := range files {
		err = errors.Join(err, f.Close())
	}
	return err
}

// readSide reads the pairs of one side. In the auto format a directory is a
// state, a .csv file a pair list, and any other file a clustering whose layout
// quality.FormatAuto detects.
func readSide(path, format string, maxPairs int64) (pairSide, error) {
	if format == "auto" {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			return pairSide{}, err
		case fi.IsDir():
			format = "state"
		case strings.EqualFold(filepath.Ext(path), ".csv"):
			format = "pairs"
		default:
			format = "clusters-auto"
		}
	}
	switch format {
	case "pairs":
		return readPairList(path)
	case "state":
		c, err := stateClustering(path)
		return clusteringSide(c, err, "state", maxPairs)
	case "clusters", "labels", "clusters-auto":
		f := map[string]quality.Format{"clusters": quality.FormatLines, "labels": quality.FormatLabels}[format]
		c, err := readClusteringFile(path, f)
		return clusteringSide(c, err, "clustering", maxPairs)
	}
	return pairSide{}, fmt.Errorf("unknown format %q (want auto, pairs, clusters, labels or state)", format)
}

func readPairList(path string) (pairSide, error) {
	f, err := os.Open(path)
	if err != nil {
		return pairSide{}, err
	}
	defer f.Close()
	ps, err := quality.ReadPairs(f)
	return pairSide{what: "pair list", pairs: ps}, err
}

func readClusteringFile(path string, format quality.Format) (*quality.Clustering, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := quality.ReadClustering(f, format)
	if err != nil && format == quality.FormatAuto {
		err = fmt.Errorf("%w (read as a clustering; for a pair list pass the format pairs)", err)
	}
	return c, err
}

// clusteringSide expands a clustering into its pairs, refusing more than maxPairs.
func clusteringSide(c *quality.Clustering, err error, kind string, maxPairs int64) (pairSide, error) {
	if err != nil {
		return pairSide{}, err
	}
	if n := c.PairCount(); n > maxPairs {
		return pairSide{}, fmt.Errorf("%s of %d pairs, more than --max-pairs %d", kind, n, maxPairs)
	}
	return pairSide{what: fmt.Sprintf("%s of %d documents in %d clusters", kind, c.Len(), c.K()), pairs: c.Pairs()}, nil
}

// stateClustering reads the cluster id of every document stored in dir: the
// stream's, or the offline pass's after offline cluster --write-back. A
// document without one (cluster 0) is a singleton.
func stateClustering(dir string) (*quality.Clustering, error) {
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		return nil, fmt.Errorf("not a state directory: %w", err)
	}
	st, err := state.Open(state.Options{Dir: dir, GCInterval: -1})
	if err != nil {
		return nil, err
	}
	ids, labels, err := offline.StoredClusters(st)
	if err = errors.Join(err, st.Close()); err != nil {
		return nil, err
	}
	return quality.FromLabels(ids, labels)
}
