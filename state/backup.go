package state

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dgraph-io/badger/v4"
)

// Backup writes a full backup of the database to w in Badger's backup format: a
// consistent snapshot, taken while the store stays open for reads and writes.
// It returns the database version the backup reaches.
func (s *Store) Backup(w io.Writer) (uint64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.leave()
	v, err := s.db.Backup(w, 0)
	if err != nil {
		return 0, fmt.Errorf("backup state %s: %w", where(s.opt), err)
	}
	return v, nil
}

// Restore loads a backup written by Backup into a new database at dir, which
// must not exist or be empty. Open the result as usual: it rebuilds the
// in-memory indexes and checks the sketch version.
func Restore(dir string, r io.Reader) error {
	if err := requireEmpty(dir); err != nil {
		return fmt.Errorf("restore state into %s: %w", dir, err)
	}
	o := Options{Dir: dir, GCInterval: -1}
	o.EnsureDefaults()
	db, err := badger.Open(badgerOptions(o))
	if err != nil {
		return fmt.Errorf("restore state into %s: %w", dir, err)
	}
	err = db.Load(r, 256)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("restore state into %s: %w", dir, err)
	}
	return nil
}

func requireEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return errors.New("directory is not empty")
	}
	return nil
}

// Compact merges the LSM tree's levels into one (dropping overwritten versions
// and expired entries) and then rewrites value-log files that are mostly
// garbage. It is for a stopped stream or a quiet hour: it competes with writes
// for disk and CPU.
func (s *Store) Compact() error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if err := s.db.Flatten(2); err != nil {
		return fmt.Errorf("compact state %s: %w", where(s.opt), err)
	}
	if !s.opt.InMemory {
		for s.db.RunValueLogGC(gcDiscardRatio) == nil {
		}
	}
	return nil
}

// RestoreTemp restores the backup file at path (Restore) into a new
// temporary directory and returns it; the caller removes it.
func RestoreTemp(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dir, err := os.MkdirTemp("", "dedupstream-backup-")
	if err != nil {
		return "", err
	}
	if err := Restore(dir, f); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("restore %s: %w", path, err)
	}
	return dir, nil
}
