//go:build !linux

package bench

import (
	"os"
	"time"
)

// Off Linux there is no /proc/self/status to read and no peak-RSS counter to
// reset, so the bench harness's memory figures are 0, "unknown"; its CPU
// times (cputime_*.go) are measured everywhere.

// ResetPeakRSS does nothing here.
func ResetPeakRSS() {}

// PeakRSS is unknown here: 0.
func PeakRSS() int64 { return 0 }

// ProcStatus is unknown here: 0.
func ProcStatus(string) int64 { return 0 }

// ChildStatus is unknown here: 0.
func ChildStatus(int, string) int64 { return 0 }

// ProcCPU is unknown here.
func ProcCPU(int) (time.Duration, bool) { return 0, false }

// ChildPeakRSS is unknown here: 0.
func ChildPeakRSS(*os.ProcessState) int64 { return 0 }

// StopSignal asks a child filter to stop; where there is no SIGTERM, an interrupt.
func StopSignal() os.Signal { return os.Interrupt }
