package filter

import (
	"errors"
	"fmt"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/lsh/vocab"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/admin"
	"github.com/dedupstream/dedupstream/stream/logging"
	"github.com/dedupstream/dedupstream/stream/prepare"
	"github.com/dedupstream/dedupstream/stream/shard"
)

// Config is the whole configuration file. Each section belongs to the package
// that uses it.
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
	MemoryLimit int64          `yaml:"memory_limit"`
	Admin       admin.Config   `yaml:"admin"`
	Log         logging.Config `yaml:"log"`
}

// NewConfig is the configuration before the file, environment and flags are
// read: empty but for the defaults of keys whose empty value means "off"
// rather than "default" (admin.listen), which EnsureDefaults cannot tell
// apart.
func NewConfig() Config {
	var c Config
	c.Admin.Listen = admin.DefaultListen
	return c
}

// EnsureDefaults fills the keys left zero. It leaves admin.listen alone:
// empty there disables the admin server (NewConfig sets its default).
func (c *Config) EnsureDefaults() {
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
	c.Admin.EnsureDefaults()
	c.Log.EnsureDefaults()
}

// Validate reports every key out of range, each section's and those that
// conflict across sections.
func (c *Config) Validate() error {
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
	errs = append(errs, c.Admin.Validate())
	errs = append(errs, c.Log.Validate())
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

// NewMethod builds the configured sketch method, reading the vocabulary file
// if one is configured. c must be defaulted and valid.
func (c *Config) NewMethod() (lsh.Method, error) {
	if c.Record.Enabled {
		return c.MethodWith(nil)
	}
	vocab, err := ReadVocabulary(c.Vocabulary)
	if err != nil {
		return nil, err
	}
	return c.MethodWith(vocab)
}

// MethodWith builds the configured sketch method with vocab, the vocabulary
// file's contents (nil for none); record mode takes none.
func (c *Config) MethodWith(vocab *vocab.Vocabulary) (lsh.Method, error) {
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

// ReadVocabulary reads a vocabulary file (vocab.ReadFile); nil for an empty
// path.
func ReadVocabulary(path string) (*vocab.Vocabulary, error) {
	if path == "" {
		return nil, nil
	}
	return vocab.ReadFile(path)
}
