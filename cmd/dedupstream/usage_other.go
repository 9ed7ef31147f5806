//go:build !linux

package main

import "os"

// Off Linux there is no /proc/self/status to read and no peak-RSS counter to
// reset, so the bench command's memory figures are 0, "unknown"; its CPU
// times (cputime_*.go) are measured everywhere.

// resetPeakRSS does nothing here.
func resetPeakRSS() {}

// peakRSS is unknown here: 0.
func peakRSS() int64 { return 0 }

// procStatus is unknown here: 0.
func procStatus(string) int64 { return 0 }

// childPeakRSS is unknown here: 0.
func childPeakRSS(*os.ProcessState) int64 { return 0 }

// stopSignal asks a child filter to stop; where there is no SIGTERM, an interrupt.
var stopSignal os.Signal = os.Interrupt
