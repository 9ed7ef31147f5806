//go:build !unix

package state

import "os"

// diskUsage returns the size of the file; allocated blocks are not known here.
func diskUsage(fi os.FileInfo) int64 {
	return fi.Size()
}
