package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dedupstream/dedupstream/offline"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
	"github.com/dedupstream/dedupstream/state"
)

// Names of the one-sided pair files ComparePairSides writes.
const (
	OnlyOursFile   = "only-ours.csv"
	OnlyTheirsFile = "only-theirs.csv"
)

// PairSide is one side of a pair comparison: where it came from and its pairs.
type PairSide struct {
	What  string // "pair list", "clustering of N documents in K clusters", …
	Pairs []quality.Pair
}

// ReadPairSide reads the pairs of one side from path in format: pairs (a
// pair list), clusters or labels (a clustering file), state (the stored
// clusters of a state directory, offline.StoredClusters) or auto, in which a
// directory is a state, a .csv file a pair list, and any other file a
// clustering whose layout quality.FormatAuto detects. A clustering of more
// than maxPairs pairs is refused.
func ReadPairSide(path, format string, maxPairs int64) (PairSide, error) {
	if format == "auto" {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			return PairSide{}, err
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
		ps, err := quality.ReadPairsFile(path)
		return PairSide{What: "pair list", Pairs: ps}, err
	case "state":
		c, err := stateClustering(path)
		return clusteringSide(c, err, "state", maxPairs)
	case "clusters", "labels", "clusters-auto":
		f := map[string]quality.Format{"clusters": quality.FormatLines, "labels": quality.FormatLabels}[format]
		c, err := quality.ReadClusteringFile(path, f)
		return clusteringSide(c, err, "clustering", maxPairs)
	}
	return PairSide{}, fmt.Errorf("unknown format %q (want auto, pairs, clusters, labels or state)", format)
}

// clusteringSide expands a clustering into its pairs, refusing more than maxPairs.
func clusteringSide(c *quality.Clustering, err error, kind string, maxPairs int64) (PairSide, error) {
	if err != nil {
		return PairSide{}, err
	}
	if n := c.PairCount(); n > maxPairs {
		return PairSide{}, fmt.Errorf("%s of %d pairs, more than --max-pairs %d", kind, n, maxPairs)
	}
	return PairSide{What: fmt.Sprintf("%s of %d documents in %d clusters", kind, c.Len(), c.K()), Pairs: c.Pairs()}, nil
}

// stateClustering reads the cluster id of every document stored in dir: the
// stream's, or the offline pass's after a write-back. A document without
// one (cluster 0) is a singleton.
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

// ComparePairSides counts the pairs of ours and theirs (quality.ComparePairs)
// and, with a directory, writes the one-sided ones there as OnlyOursFile and
// OnlyTheirsFile.
func ComparePairSides(ours, theirs PairSide, dir string) (quality.PairCounts, error) {
	if dir == "" {
		return quality.ComparePairs(ours.Pairs, theirs.Pairs, nil, nil)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return quality.PairCounts{}, err
	}
	var files []*os.File
	var writers []*quality.PairWriter
	for _, name := range []string{OnlyOursFile, OnlyTheirsFile} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return quality.PairCounts{}, errors.Join(err, closeAll(files))
		}
		files, writers = append(files, f), append(writers, quality.NewPairWriter(f))
	}
	c, err := quality.ComparePairs(ours.Pairs, theirs.Pairs, writers[0].Write, writers[1].Write)
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
