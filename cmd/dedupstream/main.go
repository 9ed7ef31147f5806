package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: dedupstream <command> [flags]

commands:
  run      consume pages from Kafka, tag or drop near-duplicates (stream mode)
  check    compare the brokers' API versions with those the filter sends (run checks at start)
  demo     run the filter on an embedded broker with generated pages (or --corpus)
  bench    measure the filter end to end against a plain passthrough
  gen      generate labelled near-duplicate pages (JSONL and/or Kafka) and their ground truth
  eval     score sketch methods and thresholds against labelled pages or a real corpus
  state    stats, backup, restore, compact or collect a state directory
  compare  every similarity measure and sketch estimate of two documents (files, or ids/URLs in --state)
  broker   run an embedded Kafka-protocol broker on loopback
  config   print the effective configuration (file, env, flags, defaults) with secrets redacted
  offline  offline tools: cluster, report and pairs over a stopped filter's state; fim mines itemsets
  version  print the version

"dedupstream <command> -h" lists a command's flags.
`

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	ctx, stop := signalContext(stderr)
	defer stop()
	var err error
	if cmd, ok := commands()[args[0]]; ok {
		err = cmd(ctx, args[1:], stdout, stderr)
	} else {
		switch args[0] {
		case "version":
			fmt.Fprintln(stdout, "dedupstream", version)
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usage)
		default:
			fmt.Fprintf(stderr, "dedupstream: unknown command %q\n\n%s", args[0], usage)
			return 2
		}
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "dedupstream:", err)
		return 1
	}
	return 0
}

// command runs one command of dedupstream with its arguments.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// commands are the commands of dedupstream by name, but for version and help.
func commands() map[string]command {
	return map[string]command{
		"run": cmdRun, "check": cmdCheck, "demo": cmdDemo, "bench": cmdBench, "gen": cmdGen, "eval": cmdEval,
		"state": cmdState, "compare": cmdCompare, "broker": cmdBroker, "config": cmdConfig, "offline": cmdOffline,
	}
}

// errUsage marks a command-line mistake already reported by the flag package.
var errUsage = errors.New("usage")

// signalContext is cancelled by the first SIGINT or SIGTERM, which starts a
// graceful stop; a second signal ends the process at once.
func signalContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "dedupstream: second signal, exiting now")
			os.Exit(130)
		case <-done:
		}
	}()
	return ctx, func() { signal.Stop(sigs); close(done); cancel() }
}
