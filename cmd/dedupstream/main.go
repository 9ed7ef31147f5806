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
	switch args[0] {
	case "run":
		err = cmdRun(ctx, args[1:], stderr)
	case "check":
		err = cmdCheck(ctx, args[1:], stdout, stderr)
	case "demo":
		err = cmdDemo(ctx, args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(ctx, args[1:], stdout, stderr)
	case "gen":
		err = cmdGen(ctx, args[1:], stdout, stderr)
	case "eval":
		err = cmdEval(ctx, args[1:], stdout, stderr)
	case "state":
		err = cmdState(ctx, args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(args[1:], stdout, stderr)
	case "broker":
		err = cmdBroker(ctx, args[1:], stdout, stderr)
	case "config":
		err = cmdConfig(args[1:], stdout, stderr)
	case "offline":
		err = cmdOffline(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "dedupstream", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "dedupstream: unknown command %q\n\n%s", args[0], usage)
		return 2
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
