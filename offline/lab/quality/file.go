package quality

import (
	"fmt"
	"os"
)

// ReadClusteringFile reads the clustering in the file at path (ReadClustering).
func ReadClusteringFile(path string, format Format) (*Clustering, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := ReadClustering(f, format)
	if err != nil && format == FormatAuto {
		err = fmt.Errorf("%w (read as a clustering; for a pair list pass the format pairs)", err)
	}
	return c, err
}

// ReadPairsFile reads the pair list in the file at path (ReadPairs).
func ReadPairsFile(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPairs(f)
}

// CompareFile scores the clustering found — document ids[i] in cluster
// labels[i] — against the ground truth in the file at truthPath (Compare).
func CompareFile(truthPath string, ids []string, labels []int32) (Scores, error) {
	f, err := os.Open(truthPath)
	if err != nil {
		return Scores{}, err
	}
	defer f.Close()
	truth, err := ReadClustering(f, FormatAuto)
	if err != nil {
		return Scores{}, fmt.Errorf("truth %s: %w", truthPath, err)
	}
	found, err := FromLabels(ids, labels)
	if err != nil {
		return Scores{}, err
	}
	return Compare(truth, found), nil
}
