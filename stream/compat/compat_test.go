package compat_test

import (
	"os"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/dedupstream/dedupstream/stream/compat"
	"github.com/dedupstream/dedupstream/stream/embedded/floor"
)

// TestKafkaGoRelease fails when go.mod moves kafka-go away from the release
// whose kafka.Conn versions Requests was read from. (A test binary carries
// no dependency versions, so it reads go.mod.)
func TestKafkaGoRelease(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "github.com/segmentio/kafka-go" {
			if f[1] != compat.KafkaGo {
				t.Fatalf("kafka-go is %s, the table was read from %s: read conn.go, consumergroup.go and reader.go again and update Requests and KafkaGo", f[1], compat.KafkaGo)
			}
			return
		}
	}
	t.Fatal("kafka-go is not required by go.mod")
}

// release is what a broker of a kversion release advertises, with minimum
// versions from floor (kversion lists maximum versions only).
func release(vs *kversion.Versions, fl map[int16]int16) compat.Broker {
	b := make(compat.Broker)
	vs.EachMaxKeyVersion(func(k, v int16) { b[k] = compat.Range{Min: fl[k], Max: v} })
	return b
}

func refused(rows []compat.Row) string {
	var out []string
	for _, r := range rows {
		if !r.OK() {
			out = append(out, r.Name()+"/"+strings.TrimPrefix(string(r.Part), "kafka."))
		}
	}
	return strings.Join(out, " ")
}

func TestCheckReleases(t *testing.T) {
	all := compat.Needs{Sharded: true, SASL: true}
	f := func(name string, b compat.Broker, want string) {
		t.Helper()
		if got := refused(compat.Check(b, compat.Requests(all))); got != want {
			t.Errorf("%s: refused %q, want %q", name, got, want)
		}
	}
	kafka41 := floor.Kafka40()
	delete(kafka41, compat.JoinGroup) // KAFKA-19444
	f("2.4", release(kversion.V2_4_0(), nil), "")
	f("2.8", release(kversion.V2_8_0(), nil), "")
	f("3.0", release(kversion.V3_0_0(), nil), "")
	f("3.9", release(kversion.V3_9_0(), nil), "")
	f("4.0 with the KIP-896 floor", release(kversion.V4_0_0(), floor.Kafka40()), "")
	f("4.1", release(kversion.V4_1_0(), kafka41), "")
	// 0.10.0 predates JoinGroup v1, ListOffsets v1, CreateTopics,
	// DescribeConfigs and SaslAuthenticate: after its SaslHandshake v0 a
	// kafka.Conn sends the SASL bytes unframed, but a kafka.Transport still
	// sends SaslAuthenticate.
	f("0.10.0", release(kversion.V0_10_0(), nil), "SaslAuthenticate/Transport CreateTopics/Transport DescribeConfigs/Transport JoinGroup/Conn ListOffsets/Conn ListOffsets/Transport")
	// SaslAuthenticate came with Kafka 1.0 (KIP-152).
	f("0.11.0", release(kversion.V0_11_0(), nil), "SaslAuthenticate/Transport")
	f("1.0", release(kversion.V1_0_0(), nil), "")
	// A floor kafka-go cannot meet: its consumer group sends FindCoordinator
	// v0 and OffsetCommit v2 whatever the broker offers.
	future := floor.Kafka40()
	future[compat.FindCoordinator], future[compat.OffsetCommit] = 1, 3
	f("a future floor", release(kversion.V4_0_0(), future), "FindCoordinator/Conn OffsetCommit/Conn")
}

func TestErrNamesRequestRangesAndFix(t *testing.T) {
	fl := floor.Kafka40()
	fl[compat.FindCoordinator] = 1
	rows := compat.Check(release(kversion.V4_0_0(), fl), compat.Requests(compat.Needs{}))
	err := compat.Err("b:9092", rows)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"kafka b:9092", "FindCoordinator (API key 10)", "kafka.Conn as v0", "accepts only v1–v6", "run a broker release that still accepts it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	old := compat.Err("b:9092", compat.Check(release(kversion.V0_10_0(), nil), compat.Requests(compat.Needs{})))
	for _, want := range []string{"JoinGroup (API key 11) is sent by kafka-go " + compat.KafkaGo + "'s kafka.Conn as v1 or v2", "accepts only v0", "upgrade it"} {
		if old == nil || !strings.Contains(old.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, old)
		}
	}
}

// TestSASLBeforeKafka10: against a broker with SaslHandshake v0 only, a
// kafka.Conn's SaslAuthenticate is not sent (the SASL bytes go unframed) but a
// kafka.Transport's is, and the broker does not offer it.
func TestSASLBeforeKafka10(t *testing.T) {
	rows := compat.Check(release(kversion.V0_11_0(), nil), compat.Requests(compat.Needs{SASL: true}))
	for _, r := range rows {
		if r.Key != compat.SaslAuthenticate {
			continue
		}
		if r.Part == compat.Conn && (!r.Skipped || !r.OK()) {
			t.Errorf("kafka.Conn's SaslAuthenticate: skipped %t, ok %t; want skipped and ok", r.Skipped, r.OK())
		}
		if r.Part == compat.Transport && (r.Skipped || r.OK()) {
			t.Errorf("kafka.Transport's SaslAuthenticate: skipped %t, ok %t; want sent and refused", r.Skipped, r.OK())
		}
	}
	err := compat.Err("b:9092", rows)
	want := "SaslAuthenticate (API key 36) is sent by kafka-go " + compat.KafkaGo + "'s kafka.Transport as v0–v1 (≤ broker max), but the broker does not offer it at all"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error lacks %q:\n%v", want, err)
	}
}

// TestPick checks the two ways kafka-go picks a version (package doc).
func TestPick(t *testing.T) {
	reqs := compat.Requests(compat.Needs{})
	pick := func(key int16, part compat.Part, b compat.Range) int16 {
		for _, r := range reqs {
			if r.Key == key && r.Part == part {
				return r.Pick(b)
			}
		}
		t.Fatalf("no %d/%s", key, part)
		return 0
	}
	f := func(key int16, part compat.Part, b compat.Range, want int16) {
		t.Helper()
		if got := pick(key, part, b); got != want {
			t.Errorf("key %d %s against %v: v%d, want v%d", key, part, b, got, want)
		}
	}
	f(compat.Fetch, compat.Conn, compat.Range{Min: 4, Max: 18}, 10)
	f(compat.Fetch, compat.Conn, compat.Range{Min: 0, Max: 9}, 5)
	f(compat.Fetch, compat.Conn, compat.Range{Min: 0, Max: 1}, -1)
	f(compat.JoinGroup, compat.Conn, compat.Range{Min: 2, Max: 9}, 2)
	f(compat.FindCoordinator, compat.Conn, compat.Range{Min: 0, Max: 6}, 0)
	f(compat.Produce, compat.Transport, compat.Range{Min: 3, Max: 13}, 8)
	f(compat.Produce, compat.Transport, compat.Range{Min: 0, Max: 5}, 5)
	f(compat.ListOffsets, compat.Transport, compat.Range{Min: 0, Max: 0}, 1)
}

// TestCheckEveryRelease runs the check against the table of every Kafka
// release kversion knows from 0.10.1 on (4.0.0 with the KIP-896 floor, later
// 4.x with JoinGroup restored), with every optional request: all pass but
// 0.10.1 and 0.10.2 in sharded mode, which predate DescribeConfigs, and
// 0.10.1 – 0.11.0 with SASL, which predate SaslAuthenticate. Without SASL
// and sharded mode every one passes. 0.10.0 and older fail
// (TestCheckReleases).
func TestCheckEveryRelease(t *testing.T) {
	kafka41 := floor.Kafka40()
	delete(kafka41, compat.JoinGroup)
	n := 0
	for _, name := range kversion.VersionStrings() {
		if strings.HasPrefix(name, "v0.8") || strings.HasPrefix(name, "v0.9") || name == "v0.10.0" {
			continue
		}
		want := ""
		switch {
		case strings.HasPrefix(name, "v0.10."):
			want = "SaslAuthenticate/Transport DescribeConfigs/Transport"
		case strings.HasPrefix(name, "v0.11."):
			want = "SaslAuthenticate/Transport"
		}
		fl := map[int16]int16(nil)
		switch {
		case name == "v4.0":
			fl = floor.Kafka40()
		case strings.HasPrefix(name, "v4."):
			fl = kafka41
		}
		b := release(kversion.FromString(name), fl)
		if got := refused(compat.Check(b, compat.Requests(compat.Needs{Sharded: true, SASL: true}))); got != want {
			t.Errorf("%s: refused %q, want %q", name, got, want)
		}
		if got := refused(compat.Check(b, compat.Requests(compat.Needs{}))); got != "" {
			t.Errorf("%s without SASL or shards: refused %q", name, got)
		}
		n++
	}
	t.Logf("%d releases checked", n)
}
