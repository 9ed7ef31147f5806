package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// brokerProc starts "dedupstream broker" as a process of its own on a free
// loopback port, with the filter's topics on parts partitions and a low
// minimum session timeout so that killed members are dropped fast, and
// returns its address.
func brokerProc(t *testing.T, bin string, parts int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := startProc(t, bin, filterEnv(addr, t.TempDir()), "broker", "--listen", addr, "--topics", "pages,pages.out,pages.dlq,single.out",
		"--partitions", strconv.Itoa(parts), "--min-session-timeout", "100ms")
	if !p.waitOutput("broker listening", 30*time.Second) {
		t.Fatalf("broker did not start:\n%s", p.out.String())
	}
	return addr
}

// shardedEnv is the environment of one instance of a sharded filter.
func shardedEnv(addr, dir string, shards int, extra ...string) []string {
	return filterEnv(addr, dir, append([]string{
		"DEDUPSTREAM_INDEX_SHARDS=" + strconv.Itoa(shards),
		"DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=1s",
		"DEDUPSTREAM_LOG_LEVEL=info",
		"DEDUPSTREAM_INDEX_MEMTABLE_BYTES=4194304",
	}, extra...)...)
}

// produceTo writes msgs to the partitions they name and waits for the acks.
func produceTo(t *testing.T, addr, topic string, msgs []kafka.Message) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: topic, RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond,
		Balancer: kafka.BalancerFunc(func(m kafka.Message, _ ...int) int { return m.Partition })}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
}

// waitAllReady waits until every instance's admin port answers /readyz 200.
func waitAllReady(t *testing.T, procs []*proc, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for _, p := range procs {
		for {
			if m := adminLine.FindStringSubmatch(p.out.String()); m != nil && get("http://"+m[1]+"/readyz") == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("instance not ready after %s:\n%s", d, tail(p.out.String(), 3000))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// shardsRebuiltFrom counts the "shard opened" log lines of p that rebuilt a
// shard from the start of the sequence log (no local copy).
func shardsRebuiltFrom(p *proc) int {
	return strings.Count(p.out.String(), fmt.Sprintf(`"replay_from":%d`, kafka.FirstOffset))
}

// get returns the status of GET url, 0 if it could not be fetched.
func get(url string) int {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
