package confkey

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Brokers []string      `yaml:"brokers"`
	Timeout time.Duration `yaml:"timeout"`
	Addr    netip.Addr    `yaml:"addr"` // unmarshals itself from text
}

type Shared struct {
	Mode string `yaml:"mode"`
}

type config struct {
	Shared  `yaml:",inline"`
	Kafka   inner    `yaml:"kafka"`
	Size    int32    `yaml:"size"`
	Rate    float64  `yaml:"rate"`
	Count   uint8    `yaml:"count"`
	On      bool     `yaml:"on"`
	Limit   *int     `yaml:"limit"`
	Skipped string   `yaml:"-"`
	Nums    []int    `yaml:"nums"`
	Until   struct{} `yaml:"until"`
	private string
}

func TestWalkNamesEveryLeafByPath(t *testing.T) {
	var c config
	var got []string
	if err := Walk(&c, func(path string, _ reflect.Value) error { got = append(got, path); return nil }); err != nil {
		t.Fatal(err)
	}
	want := "mode kafka.brokers kafka.timeout kafka.addr size rate count on limit nums"
	if strings.Join(got, " ") != want {
		t.Errorf("Walk: %v, want %s", got, want)
	}
}

func TestSet(t *testing.T) {
	f := func(key, value string, check func(c config) bool) {
		t.Helper()
		var c config
		if err := Set(&c, key, value); err != nil {
			t.Errorf("Set %s=%q: %v", key, value, err)
			return
		}
		if !check(c) {
			t.Errorf("Set %s=%q: got %+v", key, value, c)
		}
	}
	f("mode", "drop", func(c config) bool { return c.Mode == "drop" })
	f("kafka.brokers", " a:1, ,b:2 ", func(c config) bool { return reflect.DeepEqual(c.Kafka.Brokers, []string{"a:1", "b:2"}) })
	f("kafka.brokers", "", func(c config) bool { return c.Kafka.Brokers != nil && len(c.Kafka.Brokers) == 0 })
	f("kafka.timeout", "1m30s", func(c config) bool { return c.Kafka.Timeout == 90*time.Second })
	f("kafka.addr", "127.0.0.1", func(c config) bool { return c.Kafka.Addr == netip.MustParseAddr("127.0.0.1") })
	f("size", "-7", func(c config) bool { return c.Size == -7 })
	f("rate", "0.25", func(c config) bool { return c.Rate == 0.25 })
	f("count", "255", func(c config) bool { return c.Count == 255 })
	f("on", "true", func(c config) bool { return c.On })
	f("limit", "0", func(c config) bool { return c.Limit != nil && *c.Limit == 0 })
}

func TestSetRefuses(t *testing.T) {
	f := func(key, value, wantErr string) {
		t.Helper()
		var c config
		if err := Set(&c, key, value); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("Set %s=%q: error %v, want one containing %q", key, value, err, wantErr)
		}
	}
	f("nope", "1", "nope: no such configuration key")
	f("Skipped", "x", "no such configuration key")
	f("size", "x", "size: ")
	f("count", "256", "count: ")
	f("on", "maybe", "on: ")
	f("kafka.timeout", "5", "kafka.timeout: ")
	f("nums", "1,2", "cannot set a []int from text")
}

func TestApplyEnv(t *testing.T) {
	var c config
	err := ApplyEnv(&c, "APP_", []string{
		"APP_MODE=tag", "APP_KAFKA_BROKERS=a:1,b:2", "APP_ON=1", "OTHER=x", "APP_HOOK=ignored", "malformed",
	}, "APP_HOOK")
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "tag" || !reflect.DeepEqual(c.Kafka.Brokers, []string{"a:1", "b:2"}) || !c.On {
		t.Errorf("ApplyEnv: got %+v", c)
	}
}

func TestApplyEnvRefuses(t *testing.T) {
	f := func(kv, wantErr string) {
		t.Helper()
		var c config
		if err := ApplyEnv(&c, "APP_", []string{kv}); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ApplyEnv %s: error %v, want one containing %q", kv, err, wantErr)
		}
	}
	f("APP_KAFKA_BROKER=a", "environment variable APP_KAFKA_BROKER names no configuration key")
	f("APP_SIZE=big", "size (from APP_SIZE): ")
}

func TestEnvName(t *testing.T) {
	if got := EnvName("APP_", "kafka.dead_letter"); got != "APP_KAFKA_DEAD_LETTER" {
		t.Errorf("EnvName: %s", got)
	}
}
