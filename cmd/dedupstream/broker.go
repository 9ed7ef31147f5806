package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/dedupstream/dedupstream/stream/embedded"
)

// cmdBroker runs an embedded Kafka-protocol broker until signalled.
func cmdBroker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:9092", "loopback host:port to listen on")
	topics := fs.String("topics", "pages,pages.out,pages.dlq", "comma-separated topics to create")
	parts := fs.Int("partitions", 1, "partitions per created topic")
	auto := fs.Bool("auto-create", true, "let clients create other topics on first use")
	dir := fs.String("data", "", "directory to persist the log in (empty: memory only)")
	minSession := fs.Duration("min-session-timeout", 0, "least consumer-group session timeout accepted (0: Kafka's 6s); lower it to fail over killed members fast in trials")
	if err := parse(fs, args); err != nil {
		return err
	}
	b, err := embedded.Start(embedded.Options{
		Listen: *listen, Topics: splitList(*topics), Partitions: *parts, AutoCreate: *auto, DataDir: *dir,
		MinSessionTimeout: *minSession,
	})
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Fprintf(stdout, "broker listening on %s (topics: %s); Ctrl-C stops it\n", b.Addr(), *topics)
	<-ctx.Done()
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}
