package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"
)

// removeEmptyLogs deletes empty value-log (.vlog) and memtable write-ahead
// (.mem) files from dir. Badger creates such a file, then sizes it and writes
// its header; a process killed in between leaves a file of zero bytes, which
// holds no entry but which Badger v4 refuses at the next open ("Open existing
// file ...: Create a new file", "while opening fid"). A file of any other size
// is left to Badger's own recovery. Nothing is removed while another process
// has the database open (it holds Badger's directory lock, and a file it has
// just created may be empty for a moment); badger.Open then fails on the lock.
func removeEmptyLogs(dir string, log *zap.Logger) error {
	unlock, held, err := lockDir(dir)
	if err != nil || !held {
		return err
	}
	defer unlock()
	vlogs, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if err != nil {
		return err
	}
	mems, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		return err
	}
	for _, f := range append(vlogs, mems...) {
		fi, err := os.Stat(f)
		if err != nil || fi.Size() != 0 {
			continue
		}
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("remove empty log file left by a crash: %w", err)
		}
		log.Warn("removed an empty log file left by a crash", zap.String("file", f))
	}
	return nil
}

// memtableForLogs returns the memtable size that the memtable write-ahead
// logs (.mem files) in dir were written with, 0 if there are none. Badger
// creates each at twice its memtable size and, at open, replays what a crash
// left in one into a memtable arena of the size it is opened with; an arena
// too small for it ends the process (a failed assertion, not an error). So a
// state written with larger memtables than it is opened with (an upgrade over
// the old default of 32 MiB, or a lower state.memtable_bytes) after a crash
// must be opened once with the size its logs need: Open does that.
func memtableForLogs(dir string) (int64, error) {
	mems, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		return 0, err
	}
	var need int64
	for _, f := range mems {
		fi, err := os.Stat(f)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return 0, err
		}
		need = max(need, fi.Size()/2)
	}
	return need, nil
}
