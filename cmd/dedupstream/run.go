package main

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/bench"
	"github.com/dedupstream/dedupstream/stream/logging"
)

// cmdRun is the stream mode: consume, decide, emit, store, commit, until signalled.
func cmdRun(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs, load := flagSet("run", stderr)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (pprof format)")
	cfg, err := parseConfig(fs, load, args)
	if err != nil {
		return err
	}
	crash, err := crashOption(stderr)
	if err != nil {
		return err
	}
	log, err := logging.New(cfg.Log, stderr)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	if *cpuProfile != "" {
		stop, err := bench.StartCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	a, err := newFilter(cfg, log, crash)
	if err != nil {
		return err
	}
	finished := make(chan struct{})
	defer close(finished)
	go exitAfterShutdownTimeout(ctx, finished, cfg.ShutdownTimeout+closeGrace, log)
	runErr := a.Run(ctx)
	log.Info("stopping", zap.Any("counts", a.Counts()))
	return errors.Join(runErr, a.Close())
}

// closeGrace is the time past shutdown_timeout given to closing Badger and
// the admin server before exitAfterShutdownTimeout gives up on them.
const closeGrace = 5 * time.Second

// exitCodeShutdownTimeout is the exit status of a stop that overran.
const exitCodeShutdownTimeout = 124

// exitAfterShutdownTimeout is the backstop of a graceful stop: the pipeline
// gives its drain shutdown_timeout, but work blocked where it cannot see a
// cancelled context (a write stuck inside Badger, a hung syscall) would hold
// the process forever. If the stop has not finished after limit, it exits
// with status 124 — as a crash would, which the replay-safe verdicts and the
// commit order make harmless: the unfinished batch is redelivered and keeps
// its verdicts on the next start.
func exitAfterShutdownTimeout(ctx context.Context, finished <-chan struct{}, limit time.Duration, log *zap.Logger) {
	select {
	case <-finished:
		return
	case <-ctx.Done():
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-finished:
	case <-t.C:
		log.Error("stop overran shutdown_timeout; exiting without a clean close (the unfinished batch is replayed on the next start)",
			zap.Duration("limit", limit))
		log.Sync() //nolint:errcheck // exiting anyway
		os.Exit(exitCodeShutdownTimeout)
	}
}
