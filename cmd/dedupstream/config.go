package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/lsh/vocab"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/prepare"
	"github.com/dedupstream/dedupstream/stream/shard"
)

// Config is the whole configuration file. Each section belongs to the package
// that uses it; this is the only place that reads files, env and flags.
type Config struct {
	stream.Config `yaml:",inline"`
	Clean         clean.Options `yaml:"clean"`
	Sketch        lsh.Config    `yaml:"sketch"`
	// Record switches to structured records (record mode); it replaces
	// sketch.method and reads sketch.threshold, max_bands, fp_weight, fn_weight
	// and seed.
	Record lsh.RecordConfig `yaml:"record"`
	// Vocabulary is a vocabulary file (vocab.Read) of collection
	// statistics, required by sketch.method imatch and sketch.simhash.idf.
	Vocabulary string        `yaml:"vocabulary"`
	State      state.Options `yaml:"state"`
	// Index chooses the single-instance index (shards 0) or the band-sharded
	// one shared by every instance of the group (docs/scale-out.md).
	Index shard.Config `yaml:"index"`
	// MemoryLimit is a soft limit of the process's Go memory in bytes
	// (debug.SetMemoryLimit): the collector works harder as it nears it. 0 =
	// automatic (state/memlimit), -1 = none.
	MemoryLimit int64       `yaml:"memory_limit"`
	Admin       AdminConfig `yaml:"admin"`
	Log         LogConfig   `yaml:"log"`
}

// AdminConfig is the HTTP admin port (/metrics, /livez, /readyz, and
// /debug/state/backup if Backup is set).
type AdminConfig struct {
	// Listen is host:port; empty disables the admin server. Its default,
	// defaultAdminListen, is set by newConfig before the file, environment
	// and flags are read, so that an explicitly empty value stays empty.
	Listen string `yaml:"listen"`
	// Backup serves GET /debug/state/backup, a consistent backup of the
	// whole state, to anyone who can reach Listen. Off by default.
	Backup bool `yaml:"backup"`
	// StateInterval is how often dedupstream_state_bytes and the consumer lag
	// are sampled.
	StateInterval time.Duration `yaml:"state_interval"`
	// StallAfter is how long writes may keep failing, or an input partition
	// this instance owns keep records not committed without moving, before
	// /readyz answers 503 with what is stuck.
	StallAfter time.Duration `yaml:"stall_after"`
}

// LogConfig chooses the log encoding and level.
type LogConfig struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // auto (console on a terminal, else json), json, console
}

// defaultAdminListen is admin.listen when nothing sets it.
const defaultAdminListen = "127.0.0.1:9090"

// newConfig is the configuration before the file, environment and flags are
// read: empty but for the defaults of keys whose empty value means "off"
// rather than "default" (admin.listen), which ensureDefaults cannot tell apart.
func newConfig() Config {
	var c Config
	c.Admin.Listen = defaultAdminListen
	return c
}

// ensureDefaults fills the keys left zero. It leaves admin.listen alone:
// empty there disables the admin server (newConfig sets its default).
func (c *Config) ensureDefaults() {
	c.Config.EnsureDefaults()
	c.Clean.EnsureDefaults()
	if c.Record.Enabled && c.Sketch.Method == "" {
		c.Sketch.Method = lsh.MethodMinHash // record mode sketches each field with MinHash, whatever the page default
	}
	c.Sketch.EnsureDefaults()
	c.Record.EnsureDefaults()
	if c.State.Dir == "" && !c.State.InMemory {
		c.State.Dir = "./data"
	}
	c.State.EnsureDefaults()
	c.Index.EnsureDefaults()
	if c.Admin.StateInterval == 0 {
		c.Admin.StateInterval = 15 * time.Second
	}
	if c.Admin.StallAfter == 0 {
		c.Admin.StallAfter = 30 * time.Second
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Log.Format == "" {
		c.Log.Format = "auto"
	}
}

func (c *Config) validate() error {
	errs := []error{c.Config.Validate(), c.Clean.Validate(), c.Sketch.Validate(), c.State.Validate(), c.Index.Validate()}
	if c.Index.Shards > 0 && c.State.InMemory {
		errs = append(errs, errors.New("state.in_memory: a sharded filter keeps its shards on disk, so a moved shard can be reopened; unset it or set index.shards 0"))
	}
	if c.Record.Enabled {
		errs = append(errs, c.validateRecord())
	}
	if c.Vocabulary == "" && (c.Sketch.Method == lsh.MethodIMatch || c.Sketch.SimHash.IDF) {
		errs = append(errs, errors.New("vocabulary: a vocabulary file is required by sketch.method imatch and sketch.simhash.idf"))
	}
	if c.MemoryLimit < -1 {
		errs = append(errs, fmt.Errorf("memory_limit: want bytes, 0 (automatic) or -1 (none), got %d", c.MemoryLimit))
	}
	if c.Admin.StallAfter < 0 {
		errs = append(errs, fmt.Errorf("admin.stall_after: must be positive, got %s", c.Admin.StallAfter))
	}
	if c.Admin.StateInterval < 0 {
		errs = append(errs, fmt.Errorf("admin.state_interval: must be positive, got %s", c.Admin.StateInterval))
	}
	switch c.Log.Format {
	case "auto", "json", "console":
	default:
		errs = append(errs, fmt.Errorf("log.format: want auto, json or console, got %q", c.Log.Format))
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level: want debug, info, warn or error, got %q", c.Log.Level))
	}
	return errors.Join(errs...)
}

// validateRecord checks what record mode needs of the other sections.
func (c *Config) validateRecord() error {
	errs := []error{c.Record.Validate()}
	if c.Decode.Format == prepare.FormatRaw {
		errs = append(errs, errors.New("decode.format: record mode reads JSON records; want auto or json, got raw"))
	}
	if c.Sketch.Method != lsh.MethodMinHash {
		errs = append(errs, fmt.Errorf("sketch.method: record mode sketches each field with MinHash; leave it unset or minhash, got %q", c.Sketch.Method))
	}
	if c.Sketch.Verify.Method != "" && c.Sketch.Verify.Method != lsh.VerifyNone {
		errs = append(errs, fmt.Errorf("sketch.verify.method: record mode verifies with its weighted field similarity; leave it none, got %q", c.Sketch.Verify.Method))
	}
	// Record fields carry their own shingle settings; the page shingling
	// options would be silently ignored, so they are refused instead.
	if c.Sketch.StopWords != "" && c.Sketch.StopWords != "none" || c.Sketch.Stem != "" && c.Sketch.Stem != "none" {
		errs = append(errs, fmt.Errorf("sketch.stopwords/stem: record mode does not apply them to record fields; leave them none, got %q/%q", c.Sketch.StopWords, c.Sketch.Stem))
	}
	return errors.Join(errs...)
}

// loadConfig reads path (if not empty), then applies DEDUPSTREAM_* environment
// variables; flags are applied by the caller afterwards.
func loadConfig(path string, environ []string) (Config, error) {
	c := newConfig()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("read config: %w", err)
		}
		if err := decodeYAML(b, &c); err != nil {
			return c, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if err := applyEnv(&c, environ); err != nil {
		return c, err
	}
	return c, nil
}

// decodeYAML decodes strictly: an unknown key is an error that names it.
func decodeYAML(b []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) { // an empty file means defaults
		return err
	}
	return nil
}

// newMethod builds the configured sketch method, reading the vocabulary file
// if one is configured. c must be defaulted and valid.
func (c *Config) newMethod() (lsh.Method, error) {
	if c.Record.Enabled {
		return c.methodWith(nil)
	}
	vocab, err := readVocabulary(c.Vocabulary)
	if err != nil {
		return nil, err
	}
	return c.methodWith(vocab)
}

// methodWith builds the configured sketch method with vocab, the vocabulary
// file's contents (nil for none); record mode takes none.
func (c *Config) methodWith(vocab *vocab.Vocabulary) (lsh.Method, error) {
	if c.Record.Enabled {
		m, err := lsh.NewRecordMethod(c.Record, c.Sketch)
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		return m, nil
	}
	m, err := lsh.NewMethod(c.Sketch, vocab)
	if err != nil {
		return nil, fmt.Errorf("sketch: %w", err)
	}
	return m, nil
}

// readVocabulary reads a vocabulary file (vocab.ReadFile); nil for an empty
// path.
func readVocabulary(path string) (*vocab.Vocabulary, error) {
	if path == "" {
		return nil, nil
	}
	return vocab.ReadFile(path)
}
