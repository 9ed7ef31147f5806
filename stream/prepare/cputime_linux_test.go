//go:build linux

package prepare

import "syscall"

// threadCPU is the user+system CPU time of the calling OS thread in
// nanoseconds: a benchmark locked to its thread counts its own work only,
// not what other processes on a shared machine take from it. The kernel
// brings it up to date at scheduler ticks, so it is only as good as the run
// is long: a benchmark of the default second is within a percent.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
