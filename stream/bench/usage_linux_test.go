package bench

import (
	"os"
	"testing"
	"time"
)

// TestProcCPU reads this process's CPU time from /proc and checks it against
// getrusage's, which counts the same ticks more finely.
func TestProcCPU(t *testing.T) {
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); { // burn some CPU
	}
	got, ok := ProcCPU(os.Getpid())
	want := CPUTime()
	if !ok || got <= 0 || got > want+20*time.Millisecond || got < want-100*time.Millisecond {
		t.Errorf("ProcCPU = %v, %v; getrusage says %v", got, ok, want)
	}
	if _, ok := ProcCPU(-1); ok {
		t.Error("ProcCPU of pid -1 reads something")
	}
}
