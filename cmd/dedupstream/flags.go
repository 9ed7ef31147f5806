package main

import (
	"flag"
	"io"
	"os"
)

// configFlag is a command-line flag that overrides one configuration key.
type configFlag struct {
	name, key, usage string
}

// bareFlags are the configFlags that may be given without a value, as
// switches (--create-topics; --create-topics=false turns it off).
var bareFlags = map[string]bool{"create-topics": true}

// configFlags are the overrides every filtering command accepts.
var configFlags = []configFlag{
	{"brokers", "kafka.brokers", "comma-separated Kafka bootstrap brokers"},
	{"input", "kafka.input", "input topic"},
	{"output", "kafka.output", "output topic"},
	{"duplicates", "kafka.duplicates", "topic for dropped duplicates in drop mode"},
	{"dead-letter", "kafka.dead_letter", "dead-letter topic for invalid input"},
	{"create-topics", "kafka.create_topics", "create the topics of the configuration that do not exist, with the input's partition count"},
	{"group", "kafka.group", "consumer group id"},
	{"state", "state.dir", "state directory (Badger)"},
	{"threshold", "sketch.threshold", "Jaccard similarity threshold, (0, 1)"},
	{"containment", "sketch.containment", "containment in an earlier page that makes a page \"contained\" (bottomk, modm, full), [0, 1]; 0 turns that verdict off"},
	{"mode", "mode", "tag (forward all with headers) or drop (forward unique only)"},
	{"format", "decode.format", "auto, raw or json"},
	{"record", "record.enabled", "true: record mode, structured JSON records compared field by field"},
	{"index-shards", "index.shards", "shards of the band-sharded index shared by every instance of the group (0: single instance)"},
	{"admin", "admin.listen", "admin HTTP address for /metrics, /livez, /readyz (empty disables)"},
	{"log-level", "log.level", "debug, info, warn or error"},
}

// newFlags is the flag set of a command: it reports its errors and usage on
// stderr and returns them rather than exit.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// flagSet builds a FlagSet with --config and the configuration overrides; the
// returned func loads the configuration once the set is parsed.
func flagSet(name string, stderr io.Writer) (*flag.FlagSet, func() (Config, error)) {
	fs := newFlags(name, stderr)
	path := fs.String("config", "", "YAML configuration file (see config.example.yaml)")
	for _, f := range configFlags {
		if bareFlags[f.name] {
			fs.Var(new(boolString), f.name, f.usage+" (config key "+f.key+")")
			continue
		}
		fs.String(f.name, "", f.usage+" (config key "+f.key+")")
	}
	load := func() (Config, error) {
		cfg, err := loadConfig(*path, os.Environ())
		if err != nil {
			return cfg, err
		}
		if err := applyFlags(fs, &cfg); err != nil {
			return cfg, err
		}
		cfg.EnsureDefaults()
		return cfg, cfg.Validate()
	}
	return fs, load
}

// applyFlags sets the keys of the override flags given on the command line.
func applyFlags(fs *flag.FlagSet, cfg *Config) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		for _, cf := range configFlags {
			if cf.name == f.Name && err == nil {
				err = setKey(cfg, cf.key, f.Value.String())
			}
		}
	})
	return err
}

// parseConfig parses args with fs, then loads the configuration with load
// (flagSet's).
func parseConfig(fs *flag.FlagSet, load func() (Config, error), args []string) (Config, error) {
	if err := parse(fs, args); err != nil {
		return Config{}, err
	}
	return load()
}

// parse parses args, mapping flag-package failures to errUsage.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return errUsage
	}
	return nil
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// boolString is a flag.Value of a boolean configuration key, kept as the
// text given ("true" when bare) for setKey to parse.
type boolString string

func (b *boolString) String() string     { return string(*b) }
func (b *boolString) Set(v string) error { *b = boolString(v); return nil }
func (b *boolString) IsBoolFlag() bool   { return true }
