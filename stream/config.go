package stream

import (
	"errors"
	"fmt"
	"time"

	"github.com/dedupstream/dedupstream/stream/prepare"
)

// Config is everything the pipeline needs besides the cleaner, sketcher and index.
// Zero values mean defaults; call EnsureDefaults, then Validate.
type Config struct {
	Kafka  KafkaConfig    `yaml:"kafka"`
	Mode   Mode           `yaml:"mode"`
	Decode prepare.Config `yaml:"decode"`
	Batch  BatchConfig    `yaml:"batch"`
	// ShutdownTimeout bounds the work done after a stop is requested: the batch
	// in hand is emitted, stored and committed within it, or left for replay.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
}

// KafkaConfig names the brokers, topics and consumer group.
type KafkaConfig struct {
	Brokers []string `yaml:"brokers"`
	Input   string   `yaml:"input"`
	Output  string   `yaml:"output"`
	// Duplicates, if set, receives dropped duplicates in drop mode.
	Duplicates string `yaml:"duplicates"`
	// DeadLetter receives invalid input; empty means Input + ".dlq".
	DeadLetter string `yaml:"dead_letter"`
	Group      string `yaml:"group"`
	// StartOffset is where a group with no committed offset starts: earliest or latest.
	StartOffset string `yaml:"start_offset"`
	// ClientID is sent to the brokers.
	ClientID string `yaml:"client_id"`
	// MaxBatchBytes caps one produce request per partition. It is an upper
	// bound: at start the writers are sized to the least max.message.bytes of
	// the topics they write (SizeWriters), read from the brokers.
	MaxBatchBytes int `yaml:"max_batch_bytes"`
	// CreateTopics creates, at start, the topics of this configuration that
	// do not exist (CheckTopics); off, a missing topic stops the start.
	CreateTopics bool `yaml:"create_topics"`
	// SessionTimeout is how long the group coordinator waits for a heartbeat
	// before it drops this member. A filter killed without leaving the group
	// holds its partitions this long, so a restarted one waits as long to join:
	// kafka-go has no static membership to take the old member's place.
	// Heartbeats are sent every tenth of it.
	SessionTimeout time.Duration `yaml:"session_timeout"`
	// TLS and SASL secure the connections to the brokers (docs/operations.md, "Security").
	TLS  TLSConfig  `yaml:"tls"`
	SASL SASLConfig `yaml:"sasl"`
}

// BatchConfig bounds how many records are decided, emitted and committed together.
type BatchConfig struct {
	Size int `yaml:"size"`
	// Linger is how long a batch may gather records after its first one
	// while the stage after fetching is busy. When that stage waits, the
	// batch goes with what arrives within a millisecond (FetchBatch), unless
	// HoldWhenIdle. The same holds for a sharded front (fetchOrdered) and for
	// a shard reading its sequence log, which waits for nothing else while it
	// fetches.
	Linger time.Duration `yaml:"linger"`
	// HoldWhenIdle gathers for the whole Linger even when the pipeline is
	// idle: fewer, fuller batches (and offset commits) at moderate rates, for
	// up to Linger more latency.
	HoldWhenIdle bool `yaml:"hold_when_idle"`
	// Workers clean and sketch records in parallel; zero means GOMAXPROCS.
	Workers int `yaml:"workers"`
	// RetryBackoff is the first wait after a failed write or commit; it doubles up to 30s.
	RetryBackoff time.Duration `yaml:"retry_backoff"`
}

// EnsureDefaults fills zero fields with defaults.
func (c *Config) EnsureDefaults() {
	k := &c.Kafka
	setDefault(&k.Input, "pages")
	setDefault(&k.Output, k.Input+".out")
	setDefault(&k.DeadLetter, k.Input+".dlq")
	setDefault(&k.Group, "dedupstream")
	setDefault(&k.StartOffset, "earliest")
	setDefault(&k.ClientID, "dedupstream")
	if len(k.Brokers) == 0 {
		k.Brokers = []string{"127.0.0.1:9092"}
	}
	if k.MaxBatchBytes == 0 {
		k.MaxBatchBytes = 1 << 20
	}
	if k.SessionTimeout == 0 {
		k.SessionTimeout = 30 * time.Second
	}
	if c.Mode == 0 {
		c.Mode = ModeTag
	}
	c.Decode.EnsureDefaults()
	b := &c.Batch
	if b.Size == 0 {
		b.Size = 500
	}
	if b.Linger == 0 {
		b.Linger = 20 * time.Millisecond
	}
	if b.RetryBackoff == 0 {
		b.RetryBackoff = 100 * time.Millisecond
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = 30 * time.Second
	}
}

func setDefault(s *string, v string) {
	if *s == "" {
		*s = v
	}
}

// headerRoom is what a forwarded record may grow by: the verdict or error headers.
const headerRoom = 16 << 10

// Validate reports the first invalid setting, naming its configuration key.
func (c Config) Validate() error {
	k := c.Kafka
	var errs []error
	if len(k.Brokers) == 0 {
		errs = append(errs, errors.New("kafka.brokers: at least one broker is required"))
	}
	for _, b := range k.Brokers {
		if b == "" {
			errs = append(errs, errors.New("kafka.brokers: empty broker address"))
		}
	}
	if k.Input == "" || k.Output == "" || k.Group == "" {
		errs = append(errs, errors.New("kafka.input, kafka.output and kafka.group: must not be empty"))
	}
	if k.Output == k.Input || k.DeadLetter == k.Input || k.Duplicates == k.Input {
		errs = append(errs, fmt.Errorf("kafka.output: output, duplicates and dead_letter topics must differ from input %q", k.Input))
	}
	if k.StartOffset != "earliest" && k.StartOffset != "latest" {
		errs = append(errs, fmt.Errorf("kafka.start_offset: want earliest or latest, got %q", k.StartOffset))
	}
	if k.SessionTimeout < 0 {
		errs = append(errs, fmt.Errorf("kafka.session_timeout: must not be negative, got %s", k.SessionTimeout))
	}
	errs = append(errs, k.validateSecurity()...)
	if err := c.Decode.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Decode.MaxMessageBytes+headerRoom > k.MaxBatchBytes {
		errs = append(errs, fmt.Errorf("decode.max_message_bytes: %d plus %d bytes for verdict headers exceeds kafka.max_batch_bytes %d",
			c.Decode.MaxMessageBytes, headerRoom, k.MaxBatchBytes))
	}
	if c.Batch.Size < 1 || c.Batch.Size > 100000 {
		errs = append(errs, fmt.Errorf("batch.size: must be in [1, 100000], got %d", c.Batch.Size))
	}
	if c.ShutdownTimeout < 0 {
		errs = append(errs, fmt.Errorf("shutdown_timeout: must not be negative, got %s", c.ShutdownTimeout))
	}
	if c.Batch.Linger < 0 || c.Batch.Workers < 0 || c.Batch.RetryBackoff < 0 {
		errs = append(errs, errors.New("batch.linger, batch.workers and batch.retry_backoff: must not be negative"))
	}
	return errors.Join(errs...)
}
