// The memory figures of the bench harness: Linux reports them in /proc; on
// other systems usage_other.go returns 0, "unknown".

package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ResetPeakRSS restarts the kernel's peak-RSS counter (VmHWM) for this process.
func ResetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// PeakRSS is VmHWM in bytes, 0 if unknown.
func PeakRSS() int64 { return ProcStatus("VmHWM") }

// ProcStatus reads a size field of /proc/self/status in bytes, 0 if unknown:
// VmHWM (peak RSS), RssAnon (heap and stacks), RssFile (mapped files, e.g.
// Badger's tables, which the kernel can drop under pressure).
func ProcStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// ChildPeakRSS is the peak resident memory of an exited child process, in
// bytes (Linux reports ru_maxrss in KiB).
func ChildPeakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}

// StopSignal asks a child filter to drain and stop.
func StopSignal() os.Signal { return syscall.SIGTERM }
