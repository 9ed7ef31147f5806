//go:build crashpoint

package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// crashPoint is a parsed DEDUPSTREAM_CRASH_POINT.
type crashPoint struct {
	stage  string
	n      int64
	pause  time.Duration // zero: SIGKILL
	hits   atomic.Int64
	stderr io.Writer
}

// parseCrashPoint parses "stage:N" or "stage:N:pause=DUR".
func parseCrashPoint(s string, stderr io.Writer) (*crashPoint, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || !slices.Contains(stream.BatchStages(), parts[0]) {
		return nil, fmt.Errorf("%s=%q: want stage:N[:pause=DUR], stage one of %s", crashPointEnv, s, strings.Join(stream.BatchStages(), ", "))
	}
	n, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("%s=%q: N must be a positive integer", crashPointEnv, s)
	}
	c := &crashPoint{stage: parts[0], n: n, stderr: stderr}
	if len(parts) == 3 {
		d, ok := strings.CutPrefix(parts[2], "pause=")
		if c.pause, err = time.ParseDuration(d); !ok || err != nil || c.pause <= 0 {
			return nil, fmt.Errorf("%s=%q: want pause=DUR with a positive duration", crashPointEnv, s)
		}
	}
	return c, nil
}

// afterStage is the pipeline hook (stream.Deps.AfterStage).
func (c *crashPoint) afterStage(stage string, _ int) error {
	if stage != c.stage || c.hits.Add(1) != c.n {
		return nil
	}
	if c.pause > 0 {
		fmt.Fprintf(c.stderr, "dedupstream: crash point %s:%d: pausing %s\n", c.stage, c.n, c.pause)
		time.Sleep(c.pause)
		return nil
	}
	fmt.Fprintf(c.stderr, "dedupstream: crash point %s:%d: SIGKILL\n", c.stage, c.n)
	if err := killSelf(); err != nil {
		return fmt.Errorf("crash point %s:%d: %w", c.stage, c.n, err)
	}
	select {} // the signal is on its way
}

// killSelf kills this process at once: SIGKILL on Unix, TerminateProcess on
// Windows.
func killSelf() error {
	p, err := os.FindProcess(os.Getpid())
	if err != nil {
		return err
	}
	return p.Kill()
}

// crashOption is the crash point DEDUPSTREAM_CRASH_POINT sets, if it is set,
// as an option of the pipeline's deps.
func crashOption(stderr io.Writer) (appOption, error) {
	v, ok := os.LookupEnv(crashPointEnv)
	if !ok {
		return noOption, nil
	}
	c, err := parseCrashPoint(v, stderr)
	if err != nil {
		return nil, err
	}
	return func(d *stream.Deps) { d.AfterStage = c.afterStage }, nil
}
