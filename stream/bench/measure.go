package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// Run is what Measure saw of one pipeline run.
type Run struct {
	Counts stream.Counts
	// Usage is the run's wall time and CPU: this process's, and the
	// embedded broker's if MeasureOptions.Cluster names it.
	Usage
	PeakRSS int64 // bytes, peak during the run
	Anon    int64 // RssAnon at the end of the run: heap, stacks
	File    int64 // RssFile at the end of the run: mapped files (Badger tables)
	// PeakAnon and PeakLive are the largest RssAnon and live Go heap (as the
	// last collection measured it) seen during the run, sampled every
	// memSampleEvery: what the process's own memory peaked at, Badger's
	// mapped tables (which the kernel may drop) left out.
	PeakAnon, PeakLive int64
}

// memSampleEvery is how often Measure samples RssAnon and the live heap.
const memSampleEvery = 100 * time.Millisecond

// Measure runs p until it has processed n records (or ctx ends), samples the
// run, then stops p and waits for its Run to finish before returning, so the
// caller may close p and its state.
func Measure(ctx context.Context, p *stream.Pipeline, n int) (*Run, error) {
	return MeasureWith(ctx, p, n, MeasureOptions{})
}

// MeasureOptions are what MeasureWith does besides Measure.
type MeasureOptions struct {
	// PeakHeapProfile, if set, is a file to hold a heap profile taken when
	// the live heap reached its peak during the run (written again each time
	// the peak grows by a twentieth): what the process's memory peaked at.
	PeakHeapProfile string
	// Cluster is where the run's topics are: its embedded broker's CPU is
	// measured beside the process's (Run.Usage).
	Cluster Cluster
}

// MeasureWith is Measure with options.
func MeasureWith(ctx context.Context, p *stream.Pipeline, n int, o MeasureOptions) (*Run, error) {
	ResetPeakRSS()
	usage := o.Cluster.StartUsage()
	peaks := sampleMemory(o.PeakHeapProfile)
	running := stream.Start(ctx, p)
	err := running.WaitFor(ctx, func() bool { return p.Counts().Records >= int64(n) }, 2*time.Millisecond)
	run := &Run{Usage: usage(), PeakRSS: PeakRSS(), Counts: p.Counts(),
		Anon: ProcStatus("RssAnon"), File: ProcStatus("RssFile")}
	var perr error
	run.PeakAnon, run.PeakLive, perr = peaks()
	return run, errors.Join(err, running.Stop(), perr)
}

// sampleMemory samples RssAnon and the live heap every memSampleEvery until
// the returned function is called, which stops it and returns their peaks
// (the last sample taken then) and the first error writing profile, a heap
// profile of the live heap's peak ("": none).
func sampleMemory(profile string) (stop func() (anon, live int64, err error)) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peakAnon, peakLive, profiled int64
	var perr error
	sample := func() {
		metrics.Read(live)
		if live[0].Value.Kind() == metrics.KindUint64 {
			peakLive = max(peakLive, int64(live[0].Value.Uint64()))
		}
		peakAnon = max(peakAnon, ProcStatus("RssAnon"))
		if profile != "" && perr == nil && peakLive > profiled+profiled/20 {
			perr, profiled = WriteHeapProfile(profile), peakLive
		}
	}
	end := SampleEvery(sample)
	return func() (int64, int64, error) {
		end()
		return peakAnon, peakLive, perr
	}
}

// SampleEvery calls sample every memSampleEvery on a goroutine of its own,
// and once more when the returned function is first called, which returns
// once that last sample is taken.
func SampleEvery(sample func()) (stop func()) {
	done, wg := make(chan struct{}), sync.WaitGroup{}
	wg.Go(func() {
		tick := time.NewTicker(memSampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				sample()
			case <-done:
				sample()
				return
			}
		}
	})
	return sync.OnceFunc(func() {
		close(done)
		wg.Wait()
	})
}

// PeakChildAnon samples the RssAnon of the running processes pids (fleet
// instances) every memSampleEvery until the returned function is called,
// which stops it and returns the largest sample of any one of them: the
// filter's own memory, without the harness's. It may be called more than once.
func PeakChildAnon(pids []int) (stop func() int64) {
	var peak int64
	end := SampleEvery(func() {
		for _, pid := range pids {
			peak = max(peak, ChildStatus(pid, "RssAnon"))
		}
	})
	return func() int64 {
		end()
		return peak
	}
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
