//go:build unix

package state

import (
	"os"
	"syscall"
)

// diskUsage returns the bytes a file occupies on disk, which for badger's
// sparsely preallocated value-log files is much less than their size.
func diskUsage(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}
