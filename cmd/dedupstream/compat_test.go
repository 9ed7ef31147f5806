package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

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
// fl and records what kafka-go sends; it returns a filter configuration for it.
func releaseBroker(t *testing.T, vs *kversion.Versions, fl map[int16]int16, group string) (string, Config, *floor.Shim) {
	t.Helper()
	shim := floor.New(fl)
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages", "pages.out", "pages.dlq"}, Partitions: 2,
		MaxVersions: vs, WrapListener: shim.Wrap, MinSessionTimeout: 100 * time.Millisecond})
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
	cfg.ensureDefaults()
	if err := cfg.validate(); err != nil {
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
// kafka-go sends is proven on the wire.
func filterOn(t *testing.T, addr string, cfg Config, shim *floor.Shim, needs compat.Needs) {
	t.Helper()
	want := planned(t, addr, needs)
	produceSecure(t, addr, stream.Security{}, metricsInput(40, 2))
	a := runFilter(t, cfg, zaptest.NewLogger(t))
	waitRecords(t, a.app, 42)
	waitSent(t, shim, want)
	a.stop(t)
	c := a.pipe.Counts()
	closeFilter(t, a.app)
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
	if out := readTopic(t, addr, "pages.out"); len(out) != 40 || headerMap(out[0])["dedup.verdict"] == "" {
		t.Errorf("%d records in pages.out, want 40 with verdicts", len(out))
	}
	if dlq := readTopic(t, addr, "pages.dlq"); len(dlq) != 2 {
		t.Errorf("%d dead letters, want 2", len(dlq))
	}
	t.Logf("sent: %v", shim.Seen())
}

// planned is what the start-up check says kafka-go sends to the broker at
// addr, as (API key, version) pairs.
func planned(t *testing.T, addr string, needs compat.Needs) map[floor.Request]bool {
	t.Helper()
	b, err := compat.Probe(context.Background(), stream.Security{}.Dialer("test"), addr)
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
			filterOn(t, addr, cfg, shim, compat.Needs{})
		})
	}
	f("2.4", kversion.V2_4_0(), nil)
	f("2.8", kversion.V2_8_0(), nil)
	f("3.0", kversion.V3_0_0(), nil)
	f("3.9", kversion.V3_9_0(), nil)
	f("4.0-floor", kversion.V4_0_0(), floor.Kafka40())
}

// TestShardedOnKafka40Floor runs one sharded instance against the KIP-896
// floor: it creates its internal topics (CreateTopics), reads their
// retention (DescribeConfigs), joins two consumer groups and filters.
func TestShardedOnKafka40Floor(t *testing.T) {
	addr, cfg, shim := releaseBroker(t, kversion.V4_0_0(), floor.Kafka40(), "compat-sharded")
	cfg.Index.Shards = 2
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	filterOn(t, addr, cfg, shim, compat.Needs{Sharded: true})
}

// TestUnmetFloorStopsTheStart: against brokers that refuse what kafka-go
// sends — a floor above its consumer group's fixed FindCoordinator v0, and
// Kafka 0.10.0, older than its JoinGroup v1 — "run" exits non-zero before
// joining the group, naming the request and both version ranges, and "check"
// prints the table with the refused rows.
func TestUnmetFloorStopsTheStart(t *testing.T) {
	future := floor.Kafka40()
	future[compat.FindCoordinator] = 1
	f := func(name string, vs *kversion.Versions, fl map[int16]int16, want ...string) {
		t.Run(name, func(t *testing.T) {
			addr, cfg, shim := releaseBroker(t, vs, fl, "compat-refused")
			args := []string{"--brokers", addr, "--state", cfg.State.Dir, "--admin", ""}
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
				if s.Key == compat.JoinGroup {
					t.Errorf("run sent JoinGroup v%d before stopping", s.Version)
				}
			}
			if r := shim.Refused(); len(r) > 0 {
				t.Errorf("run sent requests the broker refused before stopping: %v", r)
			}
			out.Reset()
			if code := realMain(append([]string{"check"}, args...), &out, &errOut); code != 1 || !strings.Contains(out.String(), "REFUSED") {
				t.Errorf("check exited %d, want 1 with REFUSED rows:\n%s", code, out.String())
			}
			t.Logf("run: %s\ncheck:\n%s", errOut.String(), out.String())
		})
	}
	f("future-floor", kversion.V4_0_0(), future, "FindCoordinator (API key 10)", "as v0", "accepts only v1–v6")
	f("kafka-0.10.0", kversion.V0_10_0(), nil, "JoinGroup (API key 11)", "as v1 or v2", "accepts only v0", "upgrade it")
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
