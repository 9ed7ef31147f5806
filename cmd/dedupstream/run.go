package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime/debug"

	"go.uber.org/zap"
)

// cmdRun is the stream mode: consume, decide, emit, store, commit, until signalled.
func cmdRun(ctx context.Context, args []string, stderr io.Writer) error {
	fs, load := flagSet("run", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := load()
	if err != nil {
		return err
	}
	var crash *crashPoint
	if v, ok := os.LookupEnv(crashPointEnv); ok {
		if crash, err = parseCrashPoint(v, stderr); err != nil {
			return err
		}
	}
	log, err := newLogger(cfg.Log, stderr)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // nothing to do about a failed flush of stderr
	if cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	a, err := newApp(cfg, log, crash.option())
	if err != nil {
		return err
	}
	runErr := a.run(ctx)
	log.Info("stopping", zap.Any("counts", a.pipe.Counts()))
	return errors.Join(runErr, a.close())
}
