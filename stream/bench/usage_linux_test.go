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
	profile := t.TempDir() + "/peak.pprof"
	stop := sampleMemory(profile)
	held := make([]byte, 64<<20)
	for i := range held {
		held[i] = byte(i) // touch every page, so it is resident
	}
	runtime.GC() // the live heap is what the last collection measured
	time.Sleep(3 * memSampleEvery)
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	anon, live, err := stop()
	if live < 64<<20 || anon < 64<<20 || err != nil {
		t.Errorf("peaks: %d bytes anonymous, %d live, %v; want both ≥ %d", anon, live, err, 64<<20)
	}
	if fi, err := os.Stat(profile); err != nil || fi.Size() == 0 {
		t.Errorf("no heap profile of the peak: %v", err)
	}
}
