package fim

import (
	"bufio"
	"context"
	"fmt"
	"os"
)

// ReadFIMIFile reads the FIMI file at path (ReadFIMI).
func ReadFIMIFile(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ds, err := ReadFIMI(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return ds, nil
}

// MineToFile mines ds as Mine does, writing the itemsets (WriteItemsets) to
// a new file at path, or nowhere when path is empty.
func MineToFile(ctx context.Context, ds *Dataset, o Options, path string) (Result, error) {
	if path == "" {
		return Mine(ctx, ds, o, func([]int32, int) error { return nil })
	}
	f, err := os.Create(path)
	if err != nil {
		return Result{}, err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	res, err := Mine(ctx, ds, o, WriteItemsets(w))
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return res, err // errors from the file name it
}
