package main

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// TestBrokerCommand starts "dedupstream broker" and talks to it over TCP with
// kafka-go, as any client would: produce to a seeded topic, read it back.
func TestBrokerCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdBroker(ctx, []string{"--listen", "127.0.0.1:0", "--topics", "pages,pages.out", "--partitions", "3"}, pw, io.Discard)
		pw.Close()
	}()
	var addr string
	line := make([]byte, 256)
	n, _ := pr.Read(line)
	if _, err := fmt.Sscanf(string(line[:n]), "broker listening on %s", &addr); err != nil {
		t.Fatalf("broker said %q: %v", line[:n], err)
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck // drain the rest of its output
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: "pages", RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
	if err := w.WriteMessages(ctx, kafka.Message{Key: []byte("k"), Value: []byte("страница")}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	conn, err := kafka.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := conn.ReadPartitions("pages.out")
	conn.Close()
	if err != nil || len(parts) != 3 {
		t.Fatalf("pages.out partitions: %d, %v", len(parts), err)
	}
	got := readBack(t, addr, "pages")
	if len(got) != 1 || got[0] != "k=страница" {
		t.Errorf("read back %v", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// readBack reads topic whole, as key=value strings.
func readBack(t *testing.T, addr, topic string) []string {
	t.Helper()
	var out []string
	for _, m := range readTopic(t, addr, topic) {
		out = append(out, string(m.Key)+"="+string(m.Value))
	}
	return out
}
