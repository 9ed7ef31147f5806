//go:build linux

package stream

import "syscall"

// threadCPU is the user+system CPU time of the calling OS thread in
// nanoseconds: a benchmark locked to its thread counts its own work only,
// not what other processes on a shared machine take from it.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
