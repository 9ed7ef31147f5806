package bench

import (
	"syscall"
	"time"
)

// CPUTime is the process's user+system CPU time.
func CPUTime() time.Duration {
	var created, exited, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	if err := syscall.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return filetimeDuration(kernel) + filetimeDuration(user)
}

// filetimeDuration reads a FILETIME that holds a duration, in 100 ns units
// (Filetime.Nanoseconds would treat it as a date since 1601).
func filetimeDuration(ft syscall.Filetime) time.Duration {
	return time.Duration(int64(ft.HighDateTime)<<32|int64(ft.LowDateTime)) * 100
}
