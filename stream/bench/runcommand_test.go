package bench

import (
	"slices"
	"strings"
	"testing"
)

// TestRunCommand: an instance takes the bench's settings as DEDUPSTREAM_
// variables, and of the bench's own environment only what is not a
// DEDUPSTREAM_ variable, the security settings and the log level.
func TestRunCommand(t *testing.T) {
	c := RunCommand{Exe: "/bin/dedupstream", Addr: "127.0.0.1:9", Config: "sec.yaml", CPUProfile: "cpu", Pin: 2, Shards: 4,
		Filter:  FilterSettings{Batch: 300, Method: "oph"},
		Environ: []string{"PATH=/bin", "DEDUPSTREAM_LOG_LEVEL=debug", "DEDUPSTREAM_KAFKA_TLS_ENABLED=true", "DEDUPSTREAM_STATE_DIR=/elsewhere"}}
	p := c.Command(3, "/state/3", "g1", false)
	if got, want := strings.Join(p.Args, " "), "taskset -c 1 /bin/dedupstream run --config sec.yaml --cpuprofile cpu.3"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
	for _, kv := range []string{"PATH=/bin", "DEDUPSTREAM_LOG_LEVEL=debug", "DEDUPSTREAM_KAFKA_TLS_ENABLED=true", "DEDUPSTREAM_STATE_DIR=/state/3",
		"DEDUPSTREAM_KAFKA_GROUP=g1", "DEDUPSTREAM_INDEX_SHARDS=4", "DEDUPSTREAM_BATCH_SIZE=300", "DEDUPSTREAM_SKETCH_METHOD=oph"} {
		if !slices.Contains(p.Env, kv) {
			t.Errorf("env lacks %s: %v", kv, p.Env)
		}
	}
	if slices.Contains(p.Env, "DEDUPSTREAM_STATE_DIR=/elsewhere") {
		t.Errorf("the bench's own DEDUPSTREAM_STATE_DIR reached the instance: %v", p.Env)
	}
	if env := c.Command(0, "/state/0", "g1", true).Env; env[len(env)-1] != "DEDUPSTREAM_LOG_LEVEL=info" {
		t.Errorf("with shardLog the last log level is %s, want info", env[len(env)-1])
	}
}
