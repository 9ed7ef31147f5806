package crashpoint

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

// Point is a parsed crash point: a stage of stream.BatchStages, the batch
// through it that triggers, and a pause (zero: SIGKILL).
type Point struct {
	stage  string
	n      int64
	pause  time.Duration
	hits   atomic.Int64
	stderr io.Writer
}

// Parse parses "stage:N" or "stage:N:pause=DUR"; the Point says what it does
// on stderr as it triggers.
func Parse(s string, stderr io.Writer) (*Point, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || !slices.Contains(stream.BatchStages(), parts[0]) {
		return nil, fmt.Errorf("want stage:N[:pause=DUR], stage one of %s", strings.Join(stream.BatchStages(), ", "))
	}
	n, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("N must be a positive integer")
	}
	c := &Point{stage: parts[0], n: n, stderr: stderr}
	if len(parts) == 3 {
		d, ok := strings.CutPrefix(parts[2], "pause=")
		if c.pause, err = time.ParseDuration(d); !ok || err != nil || c.pause <= 0 {
			return nil, fmt.Errorf("want pause=DUR with a positive duration")
		}
	}
	return c, nil
}

// AfterStage is the pipeline hook (stream.Deps.AfterStage).
func (c *Point) AfterStage(stage string, _ int) error {
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
