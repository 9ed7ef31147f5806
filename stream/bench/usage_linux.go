// The memory figures of the bench harness: Linux reports them in /proc; on
// other systems usage_other.go returns 0, "unknown".

package bench

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ResetPeakRSS restarts the kernel's peak-RSS counter (VmHWM) for this process.
func ResetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// PeakRSS is VmHWM in bytes, 0 if unknown.
func PeakRSS() int64 { return ProcStatus("VmHWM") }

// ProcStatus reads a size field of /proc/self/status in bytes, 0 if unknown:
// VmHWM (peak RSS), RssAnon (heap and stacks), RssFile (mapped files, e.g.
// Badger's tables, which the kernel can drop under pressure).
func ProcStatus(field string) int64 { return procStatus("self", field) }

// ChildStatus is ProcStatus of the running process pid (a fleet instance).
func ChildStatus(pid int, field string) int64 { return procStatus(strconv.Itoa(pid), field) }

func procStatus(pid, field string) int64 {
	f, err := os.Open("/proc/" + pid + "/status")
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

// ProcCPU is a running process's user + system CPU time so far, from
// /proc/PID/stat; false if it cannot be read.
func ProcCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// the fields after the command name (which may hold spaces and
	// parentheses), from the 3rd: utime and stime are the 14th and 15th
	i := bytes.LastIndex(b, []byte(") "))
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const ticks = 100 // USER_HZ: 100 on every architecture Go runs Linux on
	return time.Duration(utime+stime) * time.Second / ticks, true
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
