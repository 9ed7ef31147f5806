package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	"go.uber.org/zap/zaptest"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/compat"
	"github.com/dedupstream/dedupstream/stream/embedded"
	"github.com/dedupstream/dedupstream/stream/embedded/floor"
)

// releaseBroker starts an embedded broker that answers as Kafka release vs
// (kfake's MaxVersions), behind a floor shim that refuses every request below
// fl and records what kafka-go sends, with SASL on if users are given; it
// returns a filter configuration for it (SASL keys left to the caller).
func releaseBroker(t *testing.T, vs *kversion.Versions, fl map[int16]int16, group string, users ...embedded.User) (string, Config, *floor.Shim) {
	t.Helper()
	shim := floor.New(fl)
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: 2,
		MaxVersions: vs, WrapListener: shim.Wrap, MinSessionTimeout: 100 * time.Millisecond, Users: users})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	var cfg Config
	cfg.Kafka.Brokers, cfg.Kafka.Group = []string{b.Addr()}, group
	cfg.Kafka.SessionTimeout = time.Second // heartbeats every 100ms: a short run sends some
	cfg.State.Dir = t.TempDir()
	cfg.Admin.Listen = ""
	cfg.Admin.StateInterval = 50 * time.Millisecond // lag sampling: the Transport's ListOffsets, OffsetFetch
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return b.Addr(), cfg, shim
}

// filterOn runs the filter over 40 pages and 2 bad records to the end and
// checks the outcome — every page forwarded with a verdict, the bad records
// dead-lettered — and that kafka-go sent exactly the request versions the
// start-up check predicts for this broker: each of them (it waits for the
// heartbeat and lag sampling to have run before stopping, and LeaveGroup
// comes with the stop), and no other. This is how compat's table of what
// kafka-go sends is proven on the wire. The test's own clients connect with
// cfg's security, as the filter does.
func filterOn(t *testing.T, addr string, cfg Config, shim *floor.Shim) {
	t.Helper()
	sec, err := kafkaSecurity(cfg.Kafka)
	if err != nil {
		t.Fatal(err)
	}
	want := planned(t, addr, sec, compat.Needs{Sharded: cfg.Index.Shards > 0, SASL: sec.SASL != nil})
	produceSecure(t, addr, sec, metricsInput(40, 2))
	a := runFilter(t, cfg, zaptest.NewLogger(t))
	waitRecords(t, a.Filter, 42)
	waitSent(t, shim, want)
	a.stop(t)
	c := a.Counts()
	closeFilter(t, a.Filter)
	if c.Forwarded != 40 || c.Invalid != 2 || c.NearDuplicate == 0 {
		t.Errorf("counts %+v, want 40 forwarded with near-duplicates among them, 2 invalid", c)
	}
	seen := make(map[floor.Request]bool)
	for _, r := range shim.Seen() {
		seen[r] = true
		if !want[r] {
			t.Errorf("kafka-go sent %s v%d, which the check does not predict for this broker", kmsg.NameForKey(r.Key), r.Version)
		}
	}
	for r := range want {
		if !seen[r] {
			t.Errorf("kafka-go never sent %s v%d, which the check predicts", kmsg.NameForKey(r.Key), r.Version)
		}
	}
	if r := shim.Refused(); len(r) > 0 {
		t.Errorf("the broker refused %v", r)
	}
	if out := readSecure(t, addr, sec, "pages.out"); len(out) != 40 || headerMap(out[0])["dedup.verdict"] == "" {
		t.Errorf("%d records in pages.out, want 40 with verdicts", len(out))
	}
	if dlq := readSecure(t, addr, sec, "pages.dlq"); len(dlq) != 2 {
		t.Errorf("%d dead letters, want 2", len(dlq))
	}
	t.Logf("sent: %v", shim.Seen())
}

// readSecure reads every record of topic over connections made with sec.
func readSecure(t *testing.T, addr string, sec stream.Security, topic string) []kafka.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msgs, err := embedded.ReadAllWith(ctx, sec.Dialer("test"), addr, topic)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// planned is what the start-up check says kafka-go sends to the broker at
// addr, as (API key, version) pairs.
func planned(t *testing.T, addr string, sec stream.Security, needs compat.Needs) map[floor.Request]bool {
	t.Helper()
	b, err := compat.Probe(context.Background(), sec.Dialer("test"), addr)
	if err != nil {
		t.Fatal(err)
	}
	want := make(map[floor.Request]bool)
	for _, r := range compat.Check(b, compat.Requests(needs)) {
		want[floor.Request{Key: r.Key, Version: r.Sent}] = true
	}
	return want
}

// waitSent waits until the shim has seen every request of want but
// LeaveGroup, which only a stop sends.
func waitSent(t *testing.T, shim *floor.Shim, want map[floor.Request]bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		seen := make(map[floor.Request]bool)
		for _, r := range shim.Seen() {
			seen[r] = true
		}
		var missing []floor.Request
		for r := range want {
			if !seen[r] && r.Key != compat.LeaveGroup {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never sent: %v", missing)
		}
	}
}

// TestKafkaReleases runs the filter end to end against brokers that answer
// as Kafka 2.4, 2.8, 3.0, 3.9 and 4.0 — the last behind the KIP-896 floor,
// refusing every request version Kafka 4.0.0 removed — and checks that no
// request was refused and every version kafka-go sent is the one the start-up
// check predicts.
func TestKafkaReleases(t *testing.T) {
	f := func(name string, vs *kversion.Versions, fl map[int16]int16) {
		t.Run(name, func(t *testing.T) {
			addr, cfg, shim := releaseBroker(t, vs, fl, "compat-"+name)
			filterOn(t, addr, cfg, shim)
		})
	}
	f("2.4", kversion.V2_4_0(), nil)
	f("2.8", kversion.V2_8_0(), nil)
	f("3.0", kversion.V3_0_0(), nil)
	f("3.9", kversion.V3_9_0(), nil)
	f("4.0-floor", kversion.V4_0_0(), floor.Kafka40())
}

// TestShardedOnReleases runs one sharded instance against a Kafka 2.4 broker
// and against the KIP-896 floor: it creates its internal topics
// (CreateTopics), reads their retention (DescribeConfigs), joins two
// consumer groups and filters.
func TestShardedOnReleases(t *testing.T) {
	f := func(name string, vs *kversion.Versions, fl map[int16]int16) {
		t.Run(name, func(t *testing.T) {
			addr, cfg, shim := releaseBroker(t, vs, fl, "compat-sharded")
			cfg.Index.Shards = 2
			// The near-copies must reach the shards after their originals
			// even on a loaded machine (-race, CI): a front that waits the
			// default 250 ms for a lagging partition can miss all of them,
			// which says nothing about the protocol tested here.
			cfg.Index.ReorderIdle = 5 * time.Second
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			filterOn(t, addr, cfg, shim)
		})
	}
	f("2.4", kversion.V2_4_0(), nil)
	f("4.0-floor", kversion.V4_0_0(), floor.Kafka40())
}

// TestSASLOnKafka40Floor runs the filter with SCRAM-SHA-512 against the
// KIP-896 floor: SaslHandshake and SaslAuthenticate, on the reader's
// connections and the writer's, are sent as the start-up check predicts and
// accepted. (SASL over plaintext: the shim cannot read TLS.)
func TestSASLOnKafka40Floor(t *testing.T) {
	const user, pass = "filter", "pw-floor-7Rk"
	addr, cfg, shim := releaseBroker(t, kversion.V4_0_0(), floor.Kafka40(), "compat-sasl",
		embedded.User{Mechanism: "SCRAM-SHA-512", Name: user, Password: pass})
	cfg.Kafka.SASL.Mechanism, cfg.Kafka.SASL.Username, cfg.Kafka.SASL.Password = stream.SASLScramSHA512, user, pass
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	filterOn(t, addr, cfg, shim)
	seen := make(map[int16]bool)
	for _, r := range shim.Seen() {
		seen[r.Key] = true
	}
	if !seen[compat.SaslHandshake] || !seen[compat.SaslAuthenticate] {
		t.Errorf("no SASL requests on the wire: %v", shim.Seen())
	}
}

// TestUnmetFloorStopsTheStart: against brokers that refuse what kafka-go
// sends — a floor above its consumer group's fixed FindCoordinator v0, Kafka
// 0.10.0, older than its JoinGroup v1, and, in sharded mode, Kafka 0.10.1,
// which has no DescribeConfigs — "run" exits non-zero before joining the
// group or creating a topic, naming the request, both version ranges and
// what to do, and "check" prints the table with the refused rows and the
// same message. (A capped kfake still refuses versions below its own
// minimums, Fetch v4 and Produce v3, which 0.10 brokers accepted: those rows
// are refused too here, and the test looks only for the rows it names.)
func TestUnmetFloorStopsTheStart(t *testing.T) {
	future := floor.Kafka40()
	future[compat.FindCoordinator] = 1
	f := func(name string, vs *kversion.Versions, fl map[int16]int16, shards string, want ...string) {
		t.Run(name, func(t *testing.T) {
			addr, cfg, shim := releaseBroker(t, vs, fl, "compat-refused")
			args := []string{"--brokers", addr, "--state", cfg.State.Dir, "--admin", "", "--index-shards", shards}
			var out, errOut bytes.Buffer
			if code := realMain(append([]string{"run"}, args...), &out, &errOut); code != 1 {
				t.Fatalf("run exited %d, want 1; stderr:\n%s", code, errOut.String())
			}
			for _, w := range want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("run's error lacks %q:\n%s", w, errOut.String())
				}
			}
			for _, s := range shim.Seen() {
				if s.Key == compat.JoinGroup || s.Key == compat.CreateTopics {
					t.Errorf("run sent %s v%d before stopping", kmsg.NameForKey(s.Key), s.Version)
				}
			}
			if r := shim.Refused(); len(r) > 0 {
				t.Errorf("run sent requests the broker refused before stopping: %v", r)
			}
			runErr := errOut.String()
			out.Reset()
			errOut.Reset()
			if code := realMain(append([]string{"check"}, args...), &out, &errOut); code != 1 || !strings.Contains(out.String(), "REFUSED") {
				t.Errorf("check exited %d, want 1 with REFUSED rows:\n%s", code, out.String())
			}
			for _, w := range want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("check's error lacks %q:\n%s", w, errOut.String())
				}
			}
			t.Logf("run: %s\ncheck:\n%s%s", runErr, out.String(), errOut.String())
		})
	}
	f("future-floor", kversion.V4_0_0(), future, "0", "FindCoordinator (API key 10)", "as v0", "accepts only v1–v6", "run a broker release that still accepts it")
	f("kafka-0.10.0", kversion.V0_10_0(), nil, "0", "JoinGroup (API key 11)", "as v1 or v2", "accepts only v0", "upgrade it")
	f("sharded-kafka-0.10.1", kversion.V0_10_1(), nil, "2", "DescribeConfigs (API key 32)", "v0–v3 (≤ broker max)", "does not offer it at all", "use a broker that has it")
}

// TestCheckCommand prints the table for a 4.0 broker and succeeds.
func TestCheckCommand(t *testing.T) {
	addr, _, _ := releaseBroker(t, kversion.V4_0_0(), floor.Kafka40(), "compat-check")
	var out, errOut bytes.Buffer
	if code := realMain([]string{"check", "--brokers", addr, "--index-shards", "4"}, &out, &errOut); code != 0 {
		t.Fatalf("check exited %d:\n%s%s", code, out.String(), errOut.String())
	}
	for _, w := range []string{"broker " + addr, "JoinGroup", "v1 or v2", "v2–v9", "CreateTopics", "DescribeConfigs", "OffsetCommit"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("check's table lacks %q:\n%s", w, out.String())
		}
	}
	if strings.Contains(out.String(), "REFUSED") {
		t.Errorf("refused rows:\n%s", out.String())
	}
}
