package main

import (
	"context"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/confkey"
	"github.com/dedupstream/dedupstream/stream/filter"
)

// defaults is the configuration with nothing set: what loadConfig starts
// from, defaulted.
func defaults() Config {
	c := filter.NewConfig()
	c.EnsureDefaults()
	return c
}

// TestExampleConfigIsTheDefaults keeps config.example.yaml true: it must name
// every key with exactly the built-in default.
func TestExampleConfigIsTheDefaults(t *testing.T) {
	got, err := loadConfig("../../config.example.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	got.EnsureDefaults()
	if want := defaults(); !reflect.DeepEqual(got, want) {
		t.Errorf("config.example.yaml decodes to\n%+v\nbuilt-in defaults are\n%+v", got, want)
	}
	b, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	_ = confkey.Walk(&got, func(path string, _ reflect.Value) error {
		keys = append(keys, path)
		return nil
	})
	for _, k := range keys {
		leaf := k[strings.LastIndex(k, ".")+1:]
		if !strings.Contains(string(b), leaf+":") {
			t.Errorf("config.example.yaml does not document %s", k)
		}
	}
}

func TestPrecedence(t *testing.T) {
	path := t.TempDir() + "/c.yaml"
	if err := os.WriteFile(path, []byte("kafka:\n  input: from-file\n  group: g-file\nsketch:\n  threshold: 0.7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DEDUPSTREAM_KAFKA_GROUP", "g-env")
	t.Setenv("DEDUPSTREAM_KAFKA_BROKERS", "a:1, b:2")
	t.Setenv("DEDUPSTREAM_BATCH_LINGER", "7ms")
	fs, load := flagSet("run", os.Stderr)
	if err := fs.Parse([]string{"--config", path, "--threshold", "0.9", "--mode", "drop"}); err != nil {
		t.Fatal(err)
	}
	c, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Kafka.Input != "from-file" || c.Kafka.Output != "from-file.out" || c.Kafka.Group != "g-env" ||
		!reflect.DeepEqual(c.Kafka.Brokers, []string{"a:1", "b:2"}) || c.Batch.Linger != 7*time.Millisecond ||
		c.Sketch.Params.Threshold != 0.9 || c.Mode != stream.ModeDrop {
		t.Errorf("precedence wrong: %+v", c)
	}
}

func TestInvalidConfigNamesTheKey(t *testing.T) {
	f := func(yaml, env, wantKey string) {
		t.Helper()
		path := t.TempDir() + "/c.yaml"
		writeText(t, path, yaml)
		var environ []string
		if env != "" {
			environ = []string{env}
		}
		c, err := loadConfig(path, environ)
		if err == nil {
			c.EnsureDefaults()
			err = c.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), wantKey) {
			t.Errorf("config %q env %q: error %v, want one naming %s", yaml, env, err, wantKey)
		}
	}
	f("sketch:\n  threshold: 1.5\n", "", "sketch.threshold")
	f("kafka:\n  bogus: 1\n", "", "bogus")
	f("mode: sometimes\n", "", "mode")
	f("decode:\n  format: xml\n", "", "decode.format")
	f("kafka:\n  start_offset: middle\n", "", "kafka.start_offset")
	f("batch:\n  size: -1\n", "", "batch.size")
	f("", "DEDUPSTREAM_SKETCH_NUM_PERM=lots", "sketch.num_perm")
	f("", "DEDUPSTREAM_NO_SUCH_KEY=1", "DEDUPSTREAM_NO_SUCH_KEY")
	f("log:\n  format: xml\n", "", "log.format")
	f("state:\n  max_bucket: -3\n", "", "state.max_bucket")
	f("index:\n  shards: -1\n", "", "index.shards")
	f("index:\n  shards: 4\n  standbys: 9\n", "", "index.standbys")
	f("index:\n  shards: 4\nstate:\n  dir: \"\"\n  in_memory: true\n", "", "state.in_memory")
	f("sketch:\n  verify:\n    method: simhash\n", "", "sketch.verify.method")
	f("", "DEDUPSTREAM_SKETCH_VERIFY_THRESHOLD=1.2", "sketch.verify.threshold")
	f("sketch:\n  containment: 1.5\n", "", "sketch.containment")
	f("", "DEDUPSTREAM_SKETCH_CONTAINMENT=-0.1", "sketch.containment")
	f("memory_limit: -2\n", "", "memory_limit")
}

// loadValid loads a configuration file holding yaml with environ and the run
// command's flags args applied, defaulted and validated.
func loadValid(t *testing.T, yaml string, environ, args []string) Config {
	t.Helper()
	path := t.TempDir() + "/c.yaml"
	writeText(t, path, yaml)
	c, err := loadConfig(path, environ)
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := flagSet("run", io.Discard)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := applyFlags(fs, &c); err != nil {
		t.Fatal(err)
	}
	c.EnsureDefaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestContainmentKey: sketch.containment left out is the default 0.9; an
// explicit 0 — in the file, the environment or a flag — turns the contained
// verdict off, and the later source wins as for every key.
func TestContainmentKey(t *testing.T) {
	f := func(yaml string, env []string, args []string, want float64) {
		t.Helper()
		c := loadValid(t, yaml, env, args)
		if got := c.Sketch.ContainmentThreshold(); got != want {
			t.Errorf("yaml %q env %v flags %v: containment %g, want %g", yaml, env, args, got, want)
		}
	}
	off := []string{"DEDUPSTREAM_SKETCH_CONTAINMENT=0"}
	f("", nil, nil, 0.9)
	f("sketch:\n  method: full\n", nil, nil, 0.9)
	f("sketch:\n  containment: 0\n", nil, nil, 0)
	f("sketch:\n  containment: 0.7\n", nil, nil, 0.7)
	f("", off, nil, 0)
	f("sketch:\n  containment: 0.7\n", off, nil, 0)
	f("", nil, []string{"--containment", "0"}, 0)
	f("", off, []string{"--containment", "0.95"}, 0.95)
}

// TestFilterKeysStillLoads: state.filter_keys, which sized the key filter
// of state format 4, is ignored now but still accepted, from the file and
// the environment, so that older configurations load.
func TestFilterKeysStillLoads(t *testing.T) {
	c := loadValid(t, "state:\n  filter_keys: 4194304\n", nil, nil)
	if c.State.FilterKeys != 4194304 {
		t.Errorf("state.filter_keys from the file = %d", c.State.FilterKeys)
	}
	c = loadValid(t, "", []string{"DEDUPSTREAM_STATE_FILTER_KEYS=7"}, nil)
	if c.State.FilterKeys != 7 {
		t.Errorf("DEDUPSTREAM_STATE_FILTER_KEYS = %d", c.State.FilterKeys)
	}
}

// TestFilterKeysWarns: a filter run with state.filter_keys set says, once,
// that it is ignored; one without it says nothing of it.
func TestFilterKeysWarns(t *testing.T) {
	for _, keys := range []string{"4194304", ""} {
		yaml := "admin:\n  listen: \"\"\n"
		if keys != "" {
			yaml += "state:\n  filter_keys: " + keys + "\n"
		}
		c := loadValid(t, yaml, nil, []string{"--state", t.TempDir()})
		core, logs := observer.New(zap.WarnLevel)
		a, err := newFilter(c, zap.New(core))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()       // run warns first, then fails to reach the brokers
		_ = a.Run(ctx) // the error is not what this test is about
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		n := logs.FilterMessageSnippet("state.filter_keys is ignored").Len()
		if want := map[bool]int{true: 1, false: 0}[keys != ""]; n != want {
			t.Errorf("filter_keys %q: %d warnings that it is ignored, want %d", keys, n, want)
		}
	}
}
