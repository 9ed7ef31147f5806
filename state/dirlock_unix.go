//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes, without waiting, the lock Badger takes on its directory (an
// exclusive flock of the directory itself), so that the repair before
// badger.Open never touches the files of a database another process has
// open. held is false when that process holds it; unlock releases it.
func lockDir(dir string) (unlock func(), held bool, err error) {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, true, nil // a new directory: nothing to repair
	}
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() { f.Close() }, true, nil // closing the descriptor releases the flock
}
