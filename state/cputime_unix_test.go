//go:build unix

package state

import "syscall"

// processCPU returns the user+system CPU time of the whole process in
// nanoseconds (badger's background flushes and compactions included).
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
