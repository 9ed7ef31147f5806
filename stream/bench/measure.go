package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// Run is what Measure saw of one pipeline run.
type Run struct {
	Counts  stream.Counts
	Elapsed time.Duration
	CPU     time.Duration // process CPU during the run
	PeakRSS int64         // bytes, peak during the run
	Anon    int64         // RssAnon at the end of the run: heap, stacks
	File    int64         // RssFile at the end of the run: mapped files (Badger tables)
}

// Measure runs p until it has processed n records (or ctx ends), samples the
// run, then stops p and waits for its Run to finish before returning, so the
// caller may close p and its state.
func Measure(ctx context.Context, p *stream.Pipeline, n int) (*Run, error) {
	ResetPeakRSS()
	cpu0 := CPUTime()
	start := time.Now()
	running := stream.Start(ctx, p)
	err := running.WaitFor(ctx, func() bool { return p.Counts().Records >= int64(n) }, 2*time.Millisecond)
	run := &Run{Elapsed: time.Since(start), CPU: CPUTime() - cpu0, PeakRSS: PeakRSS(), Counts: p.Counts(),
		Anon: ProcStatus("RssAnon"), File: ProcStatus("RssFile")}
	return run, errors.Join(err, running.Stop())
}

// WriteHeapProfile writes a heap profile to the file at path.
func WriteHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}

// ReleaseMemory collects garbage and returns freed memory to the system, so
// that one run's peak RSS does not carry into the next.
func ReleaseMemory() { runtime.GC(); debug.FreeOSMemory() }

// DirSize is the bytes of the files under dir.
func DirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
