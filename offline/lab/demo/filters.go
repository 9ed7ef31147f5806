package demo

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/confkey"
	"github.com/dedupstream/dedupstream/stream/filter"
)

// FilterSettings are the keys of the demo filters' configuration that the
// command's flags set.
type FilterSettings struct {
	Brokers   []string // the cluster's, or the embedded broker's address
	Threshold float64  // sketch.threshold
	Mode      string   // mode: tag or drop
	// StateDir is state.dir; empty: a temporary directory, which the cleanup
	// Config returns removes.
	StateDir  string
	Instances int // filters sharing one sharded index; 1: the single-instance filter
	Shards    int // index.shards with Instances > 1
}

// Config is the demo filters' configuration: defaults, the demo's topics and
// group, no admin server, and s. The cleanup it returns removes a temporary
// state directory.
func Config(s FilterSettings) (filter.Config, func(), error) {
	var cfg filter.Config
	cfg.Kafka.Brokers = s.Brokers
	cfg.Kafka.Input, cfg.Kafka.Output = Input, Output
	cfg.Kafka.DeadLetter, cfg.Kafka.Duplicates = DeadLetter, Duplicates
	cfg.Kafka.Group = Group
	cfg.Sketch.Params.Threshold = s.Threshold
	cfg.Decode.MaxMessageBytes = 256 << 10 // so the demo's oversized record fits the broker's 1 MB limit
	cleanup := func() {}
	cfg.State.Dir = s.StateDir
	if s.StateDir == "" {
		dir, err := os.MkdirTemp("", "dedupstream-demo-*")
		if err != nil {
			return cfg, cleanup, err
		}
		cfg.State.Dir = dir
		cleanup = func() { os.RemoveAll(dir) }
	}
	if err := confkey.Set(&cfg, "mode", s.Mode); err != nil {
		return cfg, cleanup, err
	}
	if s.Instances > 1 {
		cfg.Index.Shards = s.Shards
		cfg.Kafka.SessionTimeout = 2 * time.Second
	}
	cfg.EnsureDefaults()
	cfg.Admin.Listen = "" // the demo runs no admin server
	return cfg, cleanup, cfg.Validate()
}

// Instances is Setup.New for instances filters on cfg in the process p,
// with the loggers log makes: with one instance, the filter on cfg; with
// more, instance i's own state directory under cfg.State.Dir, its log lines
// marked with its number.
func Instances(cfg filter.Config, instances int, p filter.Process, log func() (*zap.Logger, error)) func(i int) (Filter, error) {
	return func(i int) (Filter, error) {
		l, err := log()
		if err != nil {
			return nil, err
		}
		c := cfg
		if instances > 1 {
			c.State.Dir = filepath.Join(cfg.State.Dir, "instance"+strconv.Itoa(i+1))
			l = l.With(zap.Int("instance", i+1))
		}
		f, err := filter.New(c, p, l)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}
