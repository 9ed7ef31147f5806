package main

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// defaults is the configuration with nothing set: what loadConfig starts
// from, defaulted.
func defaults() Config {
	c := newConfig()
	c.ensureDefaults()
	return c
}

// TestExampleConfigIsTheDefaults keeps config.example.yaml true: it must name
// every key with exactly the built-in default.
func TestExampleConfigIsTheDefaults(t *testing.T) {
	got, err := loadConfig("../../config.example.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	got.ensureDefaults()
	if want := defaults(); !reflect.DeepEqual(got, want) {
		t.Errorf("config.example.yaml decodes to\n%+v\nbuilt-in defaults are\n%+v", got, want)
	}
	b, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	_ = walk(reflect.ValueOf(&got).Elem(), "", func(path string, _ reflect.Value) error {
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
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		var environ []string
		if env != "" {
			environ = []string{env}
		}
		c, err := loadConfig(path, environ)
		if err == nil {
			c.ensureDefaults()
			err = c.validate()
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
	f("sketch:\n  verify:\n    method: simhash\n", "", "sketch.verify.method")
	f("", "DEDUPSTREAM_SKETCH_VERIFY_THRESHOLD=1.2", "sketch.verify.threshold")
}
