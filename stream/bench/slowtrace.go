package bench

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"time"
)

// SlowTrace asks a latency run for execution traces of its stalls: the
// process keeps the last seconds of its Go execution trace in memory
// (runtime/trace's flight recorder), and when a record comes back Over late
// or later, the window is written to a file shortly after, so that it holds
// the stall and its end: what the collector, the scheduler and each of the
// filter's goroutines were doing (go tool trace FILE). It sees this process
// only, so it serves a filter that runs in process.
type SlowTrace struct {
	Path string        // the first trace is written here, the next to Path.2, Path.3, ...
	Over time.Duration // a record this late (or later) triggers a trace
	Max  int           // traces written at most
}

// Validate reports a SlowTrace that would trace nothing useful.
func (st SlowTrace) Validate() error {
	if st.Over <= 0 || st.Max < 1 {
		return fmt.Errorf("slow-record traces: need a positive lateness and at least one trace, got %s and %d", st.Over, st.Max)
	}
	return nil
}

// Trace windows: traceWindow of history (a record at Over of a second or
// less, and the batches before it, fit well within), written traceAfter
// the late record was read back so that the trace shows how the stall
// ended; the next trace is triggered no sooner than traceWindow later, so
// that two traces do not cover the same seconds. The window lives on the
// Go heap: traceMaxBytes bounds what a traced run carries (at this
// workload 3 s of trace take ~2 MB).
const (
	traceWindow   = 3 * time.Second
	traceAfter    = 500 * time.Millisecond
	traceMaxBytes = 64 << 20
)

// slowTracer is a SlowTrace at work during one run.
type slowTracer struct {
	cfg       SlowTrace
	after     time.Duration           // traceAfter; shorter in tests
	write     func(path string) error // writes the window to path
	writing   sync.Mutex              // one write at a time (FlightRecorder.WriteTo refuses a second)
	mu        sync.Mutex
	triggered int       // traces triggered
	next      time.Time // no trigger before this
	wg        sync.WaitGroup
	errs      []error
	files     []TraceFile // written
	stopRec   func()
}

// TraceFile is a trace written by a latency run: its file, and the record
// that triggered it.
type TraceFile struct {
	Path    string
	At      time.Time // when the late record was read back
	Latency time.Duration
}

// start starts the flight recorder; a nil SlowTrace (or one with no Path)
// traces nothing, and its tracer's methods do nothing.
func (st *SlowTrace) start() (*slowTracer, error) {
	if st == nil || st.Path == "" {
		return nil, nil
	}
	if err := st.Validate(); err != nil {
		return nil, err
	}
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: traceWindow, MaxBytes: traceMaxBytes})
	if err := fr.Start(); err != nil {
		return nil, fmt.Errorf("slow-record traces: %w", err)
	}
	return &slowTracer{cfg: *st, after: traceAfter, write: func(path string) error { return writeTrace(fr, path) }, stopRec: fr.Stop}, nil
}

// saw notes a record read back at now, latency late, and writes a trace
// (in the background, traceAfter later) if it is late enough and traces are
// left to write.
func (t *slowTracer) saw(now time.Time, latency time.Duration) {
	if t == nil || latency < t.cfg.Over {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.triggered >= t.cfg.Max || now.Before(t.next) {
		return
	}
	t.triggered++
	t.next = now.Add(traceWindow)
	tf := TraceFile{Path: t.cfg.Path, At: now, Latency: latency}
	if t.triggered > 1 {
		tf.Path = fmt.Sprintf("%s.%d", tf.Path, t.triggered)
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		time.Sleep(t.after)
		t.writing.Lock()
		err := t.write(tf.Path)
		t.writing.Unlock()
		t.mu.Lock()
		defer t.mu.Unlock()
		if err != nil {
			t.errs = append(t.errs, fmt.Errorf("%s: %w", tf.Path, err))
			return
		}
		t.files = append(t.files, tf)
	}()
}

// writeTrace writes fr's window to path.
func writeTrace(fr *trace.FlightRecorder, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	_, err = fr.WriteTo(w)
	return errors.Join(err, w.Flush(), f.Close())
}

// stop waits for the traces being written, stops the recorder and returns
// the traces written.
func (t *slowTracer) stop() ([]TraceFile, error) {
	if t == nil {
		return nil, nil
	}
	t.wg.Wait()
	if t.stopRec != nil {
		t.stopRec()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.files, errors.Join(t.errs...)
}
