package bench

import (
	"os"
	"runtime"
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

// TestSampleMemory holds 64 MiB live across a collection while sampleMemory
// runs, then lets it go and collects again before stopping it: the peaks
// must still show the 64 MiB in both the live heap and RssAnon, which only
// the samples taken while they were held can have seen.
func TestSampleMemory(t *testing.T) {
	stop := sampleMemory()
	held := make([]byte, 64<<20)
	for i := range held {
		held[i] = byte(i) // touch every page, so it is resident
	}
	runtime.GC() // the live heap is what the last collection measured
	time.Sleep(3 * memSampleEvery)
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	anon, live := stop()
	if live < 64<<20 || anon < 64<<20 {
		t.Errorf("peaks: %d bytes anonymous, %d live; want both ≥ %d", anon, live, 64<<20)
	}
}
