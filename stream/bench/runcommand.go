package bench

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// RunCommand makes the fleet's instances: "dedupstream run" processes
// (FleetOptions.Command).
type RunCommand struct {
	Exe  string // the dedupstream binary
	Addr string // the brokers'
	// Config is a configuration file every instance takes (--config), for
	// the cluster's kafka.tls and kafka.sasl; "" for none.
	Config string
	// CPUProfile, if not empty, has instance i write a CPU profile of its
	// whole run to CPUProfile.i.
	CPUProfile string
	Pin        int // pin instance i to CPU i mod Pin with taskset; 0: no pinning
	Shards     int // index.shards
	Standbys   int // index.standbys
	// Filter holds the keys the instances take of the in-process filter's:
	// batch.size, batch.hold_when_idle, sketch.method, sketch.bands and
	// sketch.rows.
	Filter FilterSettings
	// Environ is the bench's environment: the instances take its
	// DEDUPSTREAM_LOG_LEVEL (else warn) and, of its other DEDUPSTREAM_
	// variables, only the security settings (DEDUPSTREAM_KAFKA_TLS_*,
	// _SASL_*).
	Environ []string
}

const envPrefix = "DEDUPSTREAM_"

// Command is instance i's "dedupstream run", a member of group keeping its
// state in dir. With shardLog it logs at info level, for what it says of its
// shards.
func (c RunCommand) Command(i int, dir, group string, shardLog bool) *exec.Cmd {
	args := []string{c.Exe, "run"}
	if c.Config != "" {
		args = append(args, "--config", c.Config)
	}
	if c.CPUProfile != "" {
		args = append(args, "--cpuprofile", fmt.Sprintf("%s.%d", c.CPUProfile, i))
	}
	if c.Pin > 0 {
		args = append([]string{"taskset", "-c", strconv.Itoa(i % c.Pin)}, args...)
	}
	p := exec.Command(args[0], args[1:]...)
	s := c.Filter
	env := []string{
		"DEDUPSTREAM_KAFKA_BROKERS=" + c.Addr, "DEDUPSTREAM_KAFKA_INPUT=" + Input, "DEDUPSTREAM_KAFKA_OUTPUT=" + Output,
		"DEDUPSTREAM_KAFKA_DEAD_LETTER=" + DeadLetter, "DEDUPSTREAM_KAFKA_GROUP=" + group, "DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=2s",
		"DEDUPSTREAM_STATE_DIR=" + dir, "DEDUPSTREAM_INDEX_SHARDS=" + strconv.Itoa(c.Shards),
		"DEDUPSTREAM_BATCH_SIZE=" + strconv.Itoa(s.Batch), "DEDUPSTREAM_ADMIN_LISTEN=127.0.0.1:0",
		"DEDUPSTREAM_LOG_LEVEL=" + cmp.Or(c.getenv("DEDUPSTREAM_LOG_LEVEL"), "warn"), "DEDUPSTREAM_LOG_FORMAT=json",
		"DEDUPSTREAM_SKETCH_METHOD=" + s.Method, "DEDUPSTREAM_INDEX_STANDBYS=" + strconv.Itoa(c.Standbys),
		"DEDUPSTREAM_SKETCH_BANDS=" + strconv.Itoa(s.Bands), "DEDUPSTREAM_SKETCH_ROWS=" + strconv.Itoa(s.Rows),
		"DEDUPSTREAM_BATCH_HOLD_WHEN_IDLE=" + strconv.FormatBool(s.HoldWhenIdle),
	}
	for _, kv := range c.Environ {
		if !strings.HasPrefix(kv, envPrefix) || strings.HasPrefix(kv, envPrefix+"KAFKA_TLS_") || strings.HasPrefix(kv, envPrefix+"KAFKA_SASL_") {
			env = append(env, kv)
		}
	}
	if shardLog {
		env = append(env, "DEDUPSTREAM_LOG_LEVEL=info") // the last of a key wins
	}
	p.Env = env
	p.Stderr = os.Stderr
	return p
}

// getenv is the value of the variable key in c.Environ, as os.Getenv.
func (c RunCommand) getenv(key string) string {
	for _, kv := range c.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
