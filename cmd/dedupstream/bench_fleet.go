package main

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/dedupstream/dedupstream/stream/bench"
)

// fleetOptions are the fleet mode's: o.instances "dedupstream run" processes
// of one group (with o.shards index shards; 0 is the single-instance index,
// for one instance), each pinned to CPU i mod o.pin when o.pin > 0.
// Their brokers are at addr.
func fleetOptions(o benchOptions, src *bench.Source, addr string) (bench.FleetOptions, error) {
	exe, err := os.Executable()
	return bench.FleetOptions{
		Instances: o.instances, Shards: o.shards, Pin: o.pin, Docs: o.docs, Partitions: o.partitions,
		LatencyDocs: o.latencyDocs, Rate: o.rate, Src: src,
		Settle: o.settle, Failover: o.failover, Rebuild: o.rebuild,
		Command: func(i int, dir, group string, shardLog bool) *exec.Cmd {
			return fleetProcess(exe, addr, o, i, dir, group, shardLog)
		},
	}, err
}

// fleetProcess is instance i's "dedupstream run". It takes the bench's
// --config (the cluster's kafka.tls and kafka.sasl) and, of the DEDUPSTREAM_
// environment, only the security settings (DEDUPSTREAM_KAFKA_TLS_*, _SASL_*).
// With shardLog it logs at info level, for what it says of its shards.
func fleetProcess(exe, addr string, o benchOptions, i int, dir, group string, shardLog bool) *exec.Cmd {
	args := []string{exe, "run"}
	if o.config != "" {
		args = append(args, "--config", o.config)
	}
	if o.cpuProfile != "" {
		args = append(args, "--cpuprofile", fmt.Sprintf("%s.%d", o.cpuProfile, i))
	}
	if o.pin > 0 {
		args = append([]string{"taskset", "-c", strconv.Itoa(i % o.pin)}, args...)
	}
	p := exec.Command(args[0], args[1:]...)
	env := []string{
		"DEDUPSTREAM_KAFKA_BROKERS=" + addr, "DEDUPSTREAM_KAFKA_INPUT=" + bench.Input, "DEDUPSTREAM_KAFKA_OUTPUT=" + bench.Output,
		"DEDUPSTREAM_KAFKA_DEAD_LETTER=" + bench.DeadLetter, "DEDUPSTREAM_KAFKA_GROUP=" + group, "DEDUPSTREAM_KAFKA_SESSION_TIMEOUT=2s",
		"DEDUPSTREAM_STATE_DIR=" + dir, "DEDUPSTREAM_INDEX_SHARDS=" + strconv.Itoa(o.shards),
		"DEDUPSTREAM_BATCH_SIZE=" + strconv.Itoa(o.batch), "DEDUPSTREAM_ADMIN_LISTEN=127.0.0.1:0",
		"DEDUPSTREAM_LOG_LEVEL=" + cmp.Or(os.Getenv("DEDUPSTREAM_LOG_LEVEL"), "warn"), "DEDUPSTREAM_LOG_FORMAT=json",
		"DEDUPSTREAM_SKETCH_METHOD=" + o.method, "DEDUPSTREAM_INDEX_STANDBYS=" + strconv.Itoa(o.standbys),
		"DEDUPSTREAM_SKETCH_BANDS=" + strconv.Itoa(o.bands), "DEDUPSTREAM_SKETCH_ROWS=" + strconv.Itoa(o.rows),
		"DEDUPSTREAM_BATCH_HOLD_WHEN_IDLE=" + strconv.FormatBool(o.holdWhenIdle),
	}
	for _, kv := range os.Environ() {
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
