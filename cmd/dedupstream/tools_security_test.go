package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// TestToolsOverTLSAndSCRAM runs the real binary end to end against a secured
// cluster: "dedupstream broker" with a TLS listener that requires client
// certificates and a SCRAM-SHA-512 user; "demo --brokers" on it; "bench
// --brokers", in process and as a fleet of run processes; "gen --topic"
// producing pages to it, then "check" and "run" with the same
// configuration file, and "gen --topic" again secured by the environment
// alone. The filter must forward every page; a client with no credentials
// must be refused.
func TestToolsOverTLSAndSCRAM(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	pki := newTestPKI(t)
	dir := t.TempDir()
	const pass = "pw-tools-Xq4"
	users := filepath.Join(dir, "users")
	passFile := filepath.Join(dir, "password")
	writeText(t, users, "# mechanism user password\nSCRAM-SHA-512 filter "+pass+"\n")
	writeText(t, passFile, pass+"\n")
	cfgFile := filepath.Join(dir, "secure.yaml")
	writeText(t, cfgFile, fmt.Sprintf("kafka:\n  session_timeout: 1s\n  tls:\n    enabled: true\n    ca_file: %s\n    cert_file: %s\n    key_file: %s\n"+
		"  sasl:\n    mechanism: scram-sha-512\n    username: filter\n    password_file: %s\n", pki.caFile, pki.certFile, pki.keyFile, passFile))

	addr := freeAddr(t)
	env := filterEnv(addr, filepath.Join(dir, "state"))
	b := startProc(t, bin, env, "broker", "--listen", addr, "--topics", "pages,pages.out,pages.dlq,pages.dups,crawl,crawl.out,crawl.dlq,bench,bench.out,bench.dlq", "--partitions", "2",
		"--min-session-timeout", "100ms", "--tls-cert", pki.serverCertFile, "--tls-key", pki.serverKeyFile,
		"--tls-client-ca", pki.caFile, "--sasl-users", users)
	if !b.waitOutput("broker listening", 30*time.Second) {
		t.Fatalf("broker did not start:\n%s", b.out.String())
	}
	if !strings.Contains(b.out.String(), "tls true, sasl users 1") {
		t.Errorf("broker does not say it is secured: %s", b.out.String())
	}
	if out := mustRun(t, bin, env, "demo", "--brokers", addr, "--config", cfgFile, "--pages", "100"); !strings.Contains(out, "records in                  106") {
		t.Errorf("demo over TLS and SCRAM:\n%s", out)
	}
	corpusDir := benchCorpus(t, 9, 30)
	if out := mustRun(t, bin, env, "bench", "--brokers", addr, "--config", cfgFile, "--corpus", corpusDir, "--docs", "200",
		"--latency-docs", "0", "--passthrough=false"); !strings.Contains(out, "summary: docs=200 stored=200") {
		t.Errorf("bench over TLS and SCRAM:\n%s", out)
	}
	if out := mustRun(t, bin, env, "bench", "--brokers", addr, "--config", cfgFile, "--corpus", corpusDir, "--docs", "200",
		"--latency-docs", "0", "--passthrough=false", "--instances", "1", "--index-shards", "2"); !strings.Contains(out, "fleet instances=1 shards=2 pin=0 docs=200") {
		t.Errorf("bench fleet mode over TLS and SCRAM:\n%s", out)
	}
	const pages = 60
	mustRun(t, bin, env, "gen", "--pages", fmt.Sprint(pages), "--topic", "crawl", "--brokers", addr, "--config", cfgFile)
	if out := mustRun(t, bin, env, "check", "--config", cfgFile); !strings.Contains(out, "SaslAuthenticate") {
		t.Errorf("check's table has no SASL rows:\n%s", out)
	}
	run := startProc(t, bin, env, "run", "--config", cfgFile, "--input", "crawl", "--output", "crawl.out", "--dead-letter", "crawl.dlq")
	sec := secureClient(t, cfgFile)
	for deadline := time.Now().Add(2 * time.Minute); topicEnd(t, addr, sec, "crawl.out") < pages; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) || !run.running() {
			t.Fatalf("crawl.out holds %d of %d records; run:\n%s", topicEnd(t, addr, sec, "crawl.out"), pages, tail(run.out.String(), 3000))
		}
	}
	if err := run.signal(os.Interrupt); err != nil || !run.wait(time.Minute) || run.exitCode() != 0 {
		t.Errorf("run did not stop cleanly (%v):\n%s", err, tail(run.out.String(), 3000))
	}
	if strings.Contains(run.out.String(), pass) {
		t.Error("run logged the password")
	}
	// The same settings from the environment alone, as run takes them.
	secEnv := append(env[:len(env):len(env)], "DEDUPSTREAM_KAFKA_TLS_ENABLED=true", "DEDUPSTREAM_KAFKA_TLS_CA_FILE="+pki.caFile,
		"DEDUPSTREAM_KAFKA_TLS_CERT_FILE="+pki.certFile, "DEDUPSTREAM_KAFKA_TLS_KEY_FILE="+pki.keyFile,
		"DEDUPSTREAM_KAFKA_SASL_MECHANISM=scram-sha-512", "DEDUPSTREAM_KAFKA_SASL_USERNAME=filter", "DEDUPSTREAM_KAFKA_SASL_PASSWORD="+pass)
	before := topicEnd(t, addr, sec, "crawl")
	mustRun(t, bin, secEnv, "gen", "--pages", "5", "--topic", "crawl", "--brokers", addr)
	if after := topicEnd(t, addr, sec, "crawl"); after <= before {
		t.Errorf("gen secured by DEDUPSTREAM_KAFKA_TLS_*/_SASL_* wrote nothing to crawl (%d records before, %d after)", before, after)
	}
	plain := runToEnd(t, bin, env, "gen", "--pages", "5", "--topic", "crawl", "--brokers", addr)
	if plain.exitCode() == 0 {
		t.Errorf("gen without TLS and SASL succeeded against the secured broker")
	}
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// runToEnd runs the binary to its end (a minute at most).
func runToEnd(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	p := startProc(t, bin, env, args...)
	if !p.wait(time.Minute) {
		t.Fatalf("dedupstream %s did not finish:\n%s", strings.Join(args, " "), p.out.String())
	}
	return p
}

// mustRun runs the binary to its end, which must succeed, and returns its output.
func mustRun(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	p := runToEnd(t, bin, env, args...)
	if p.exitCode() != 0 {
		t.Fatalf("dedupstream %s exited %d:\n%s", strings.Join(args, " "), p.exitCode(), p.out.String())
	}
	return p.out.String()
}

// running reports whether the process has not exited.
func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// secureClient is the security the configuration file at path sets.
func secureClient(t *testing.T, path string) stream.Security {
	t.Helper()
	sec, err := toolSecurity(path)
	if err != nil {
		t.Fatal(err)
	}
	return sec
}

// topicEnd is the sum of topic's partitions' end offsets: its records.
func topicEnd(t *testing.T, addr string, sec stream.Security, topic string) int64 {
	t.Helper()
	c := &kafka.Client{Addr: kafka.TCP(addr), Transport: sec.Transport("test")}
	defer c.Transport.(*kafka.Transport).CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: {kafka.LastOffsetOf(0), kafka.LastOffsetOf(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, p := range resp.Topics[topic] {
		n += max(p.LastOffset, 0)
	}
	return n
}
