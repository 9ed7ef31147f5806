//go:build !unix && !windows

package main

import "time"

// cpuTime is not measured on this system: 0.
func cpuTime() time.Duration { return 0 }
