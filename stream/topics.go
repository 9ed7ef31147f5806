package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
)

// Topic is one topic the filter reads or writes, as the brokers describe it.
type Topic struct {
	Key        string // the configuration key naming it: kafka.input, kafka.output, …
	Name       string
	Partitions int // 0: the topic does not exist
	// MaxMessageBytes is the topic's effective max.message.bytes (its own
	// setting, else the broker's message.max.bytes); 0 if it could not be read.
	MaxMessageBytes int
	Created         bool // created at this start (kafka.create_topics)
}

// Topics is what CheckTopics found: the topics of the configuration and the
// sizes the writers must keep to.
type Topics struct {
	List []Topic
	// BrokerMaxMessageBytes is the broker's message.max.bytes (0: unknown):
	// the limit of the topics the filter creates itself.
	BrokerMaxMessageBytes int
	// BrokerPartitions is the broker's num.partitions (0: unknown).
	BrokerPartitions int
	// MinSessionTimeout and MaxSessionTimeout are the broker's
	// group.min.session.timeout.ms and group.max.session.timeout.ms (0:
	// unknown): the coordinator refuses a member whose session timeout lies
	// outside them.
	MinSessionTimeout, MaxSessionTimeout time.Duration
	Replication                          int // replication factor of created topics
	// LimitsErr says why the limits could not be read (a broker before
	// Kafka 0.11 has no DescribeConfigs); the writers then keep the
	// configured bounds.
	LimitsErr error
}

// Missing returns the topics that do not exist.
func (t Topics) Missing() []Topic {
	return slices.DeleteFunc(slices.Clone(t.List), func(x Topic) bool { return x.Partitions > 0 })
}

// Limit returns the least max.message.bytes of the topics written (a
// missing one counts with the broker's message.max.bytes, which it gets when
// created) and the topic it belongs to; 0 when no limit could be read.
func (t Topics) Limit() (int, string) {
	least, name := 0, ""
	for _, x := range t.List {
		n := x.MaxMessageBytes
		if x.Partitions == 0 {
			n = t.BrokerMaxMessageBytes
		}
		if x.Key == KeyInput || n <= 0 {
			continue
		}
		if least == 0 || n < least {
			least, name = n, x.Name
		}
	}
	return least, name
}

// Configuration keys of the topics the filter touches.
const (
	KeyInput      = "kafka.input"
	KeyOutput     = "kafka.output"
	KeyDuplicates = "kafka.duplicates"
	KeyDeadLetter = "kafka.dead_letter"
)

// recordBatchOverhead is what a record batch may weigh beyond kafka-go's
// count of its records, which its writers hold to BatchBytes: the batch
// header (61 bytes in format v2, counted by the broker against
// max.message.bytes) and, for each of up to 1,000 records (the shards'
// writers' BatchSize; batch.size's default is 500), the most a v2 record's
// varint framing (at most 29 bytes) exceeds kafka-go's 22. A batch that
// still comes out too large is split and sent again (Pipeline.send).
func recordBatchOverhead() int { return 61 + 7*1000 }

// SizeWriters lowers k.MaxBatchBytes to what the topics take and returns
// the most a forwarded record may weigh before its verdict headers (key,
// value and headers, as prepare.MessageSize counts them), with a phrase
// saying where that limit comes from. The configured kafka.max_batch_bytes
// stays an upper bound. With internal, the broker's message.max.bytes bounds
// it too: the limit of the internal topics the filter creates (sharded mode).
func SizeWriters(k *KafkaConfig, t Topics, internal bool) (record int, why string) {
	limit, topic := t.Limit()
	if internal && t.BrokerMaxMessageBytes > 0 && (limit == 0 || t.BrokerMaxMessageBytes < limit) {
		limit, topic = t.BrokerMaxMessageBytes, "the broker (message.max.bytes)"
	}
	if limit > 0 && limit-recordBatchOverhead() < k.MaxBatchBytes {
		k.MaxBatchBytes = limit - recordBatchOverhead()
		return k.MaxBatchBytes - headerRoom, fmt.Sprintf("max.message.bytes %d of %s, less %d for batch framing and %d for verdict headers",
			limit, topic, recordBatchOverhead(), headerRoom)
	}
	return k.MaxBatchBytes - headerRoom, fmt.Sprintf("kafka.max_batch_bytes %d less %d for verdict headers", k.MaxBatchBytes, headerRoom)
}

// topicsClient is the client CheckTopics asks with.
func topicsClient(k KafkaConfig, sec Security) *kafka.Client {
	return &kafka.Client{Addr: kafka.TCP(k.Brokers...), Timeout: 10 * time.Second, Transport: sec.transport(k.ClientID)}
}

// InspectTopics reads, without changing anything, the partition counts and
// effective max.message.bytes of the topics k names, and the broker
// settings that topics created by the filter get.
func InspectTopics(ctx context.Context, k KafkaConfig, sec Security) (Topics, error) {
	c := topicsClient(k, sec)
	defer c.Transport.(*kafka.Transport).CloseIdleConnections()
	return inspectTopics(ctx, c, k)
}

func inspectTopics(ctx context.Context, c *kafka.Client, k KafkaConfig) (Topics, error) {
	// All topics: naming one would let a broker with
	// auto.create.topics.enable create it, hiding that it was missing.
	meta, err := c.Metadata(ctx, &kafka.MetadataRequest{})
	if err != nil {
		return Topics{}, fmt.Errorf("read topic metadata: %w", err)
	}
	parts := make(map[string]int, len(meta.Topics))
	for _, t := range meta.Topics {
		if t.Error == nil {
			parts[t.Name] = len(t.Partitions)
		}
	}
	var t Topics
	t.Replication = min(3, max(len(meta.Brokers), 1))
	for _, x := range k.topics() {
		x.Partitions = parts[x.Name]
		t.List = append(t.List, x)
	}
	t.LimitsErr = describeLimits(ctx, c, &t, meta.Controller.ID)
	return t, nil
}

// topics lists the topics of the configuration, input first.
func (k KafkaConfig) topics() []Topic {
	list := []Topic{{Key: KeyInput, Name: k.Input}, {Key: KeyOutput, Name: k.Output}}
	if k.Duplicates != "" {
		list = append(list, Topic{Key: KeyDuplicates, Name: k.Duplicates})
	}
	return append(list, Topic{Key: KeyDeadLetter, Name: k.DeadLetter})
}

// describeLimits reads, in one DescribeConfigs request, max.message.bytes of
// every existing topic of t and, unless broker is negative, message.max.bytes,
// num.partitions and the group session timeout bounds of broker. A resource
// the brokers do not describe leaves its value 0.
func describeLimits(ctx context.Context, c *kafka.Client, t *Topics, broker int) error {
	req := &kafka.DescribeConfigsRequest{}
	if broker >= 0 {
		req.Resources = append(req.Resources, kafka.DescribeConfigRequestResource{
			ResourceType: kafka.ResourceTypeBroker, ResourceName: strconv.Itoa(broker),
			ConfigNames: []string{"message.max.bytes", "num.partitions", "group.min.session.timeout.ms", "group.max.session.timeout.ms"},
		})
	}
	for _, x := range t.List {
		if x.Partitions > 0 {
			req.Resources = append(req.Resources, kafka.DescribeConfigRequestResource{
				ResourceType: kafka.ResourceTypeTopic, ResourceName: x.Name, ConfigNames: []string{"max.message.bytes"},
			})
		}
	}
	resp, err := c.DescribeConfigs(ctx, req)
	if err != nil {
		return fmt.Errorf("read max.message.bytes of the topics: %w", err)
	}
	for _, r := range resp.Resources {
		if r.Error != nil {
			continue
		}
		for _, e := range r.ConfigEntries {
			n, err := strconv.Atoi(e.ConfigValue)
			if err != nil {
				continue
			}
			switch {
			case r.ResourceType == int8(kafka.ResourceTypeBroker) && e.ConfigName == "message.max.bytes":
				t.BrokerMaxMessageBytes = n
			case r.ResourceType == int8(kafka.ResourceTypeBroker) && e.ConfigName == "num.partitions":
				t.BrokerPartitions = n
			case r.ResourceType == int8(kafka.ResourceTypeBroker) && e.ConfigName == "group.min.session.timeout.ms":
				t.MinSessionTimeout = time.Duration(n) * time.Millisecond
			case r.ResourceType == int8(kafka.ResourceTypeBroker) && e.ConfigName == "group.max.session.timeout.ms":
				t.MaxSessionTimeout = time.Duration(n) * time.Millisecond
			case e.ConfigName == "max.message.bytes":
				for i := range t.List {
					if t.List[i].Name == r.ResourceName {
						t.List[i].MaxMessageBytes = n
					}
				}
			}
		}
	}
	return nil
}

// SessionTimeoutError says why the brokers would refuse a member with k's
// session timeout — JoinGroup's "[26] Invalid Session Timeout", which
// kafka-go retries for ever — and what to set instead; nil when t's bounds
// allow it or are unknown.
func SessionTimeoutError(k KafkaConfig, t Topics) error {
	switch st := k.SessionTimeout; {
	case t.MinSessionTimeout > 0 && st < t.MinSessionTimeout:
		return fmt.Errorf("kafka.session_timeout %s is below the broker's group.min.session.timeout.ms (%d): "+
			"the group coordinator would refuse to let the filter join; set kafka.session_timeout to at least %s",
			st, t.MinSessionTimeout.Milliseconds(), t.MinSessionTimeout)
	case t.MaxSessionTimeout > 0 && st > t.MaxSessionTimeout:
		return fmt.Errorf("kafka.session_timeout %s is above the broker's group.max.session.timeout.ms (%d): "+
			"the group coordinator would refuse to let the filter join; set kafka.session_timeout to at most %s",
			st, t.MaxSessionTimeout.Milliseconds(), t.MaxSessionTimeout)
	}
	return nil
}

// ErrMissingTopics is returned, wrapped, when topics of the configuration do
// not exist and kafka.create_topics is off.
var ErrMissingTopics = errors.New("stream: missing topics")

// CheckTopics checks that every topic k names exists and reads their
// limits. Missing topics are created when k.CreateTopics is set — with the
// input's partition count (the input itself with the broker's
// num.partitions) — and logged; otherwise CheckTopics returns an error that
// names each and gives the command that creates it.
func CheckTopics(ctx context.Context, k KafkaConfig, sec Security, log *zap.Logger) (Topics, error) {
	c := topicsClient(k, sec)
	defer c.Transport.(*kafka.Transport).CloseIdleConnections()
	t, err := inspectTopics(ctx, c, k)
	if err != nil {
		return t, err
	}
	if t.LimitsErr != nil {
		log.Warn("max.message.bytes not read: the writers keep kafka.max_batch_bytes", zap.Error(t.LimitsErr))
	}
	if len(t.Missing()) == 0 {
		return t, nil
	}
	if !k.CreateTopics {
		return t, MissingError(k, t)
	}
	if err := createMissing(ctx, c, &t, log); err != nil {
		return t, err
	}
	if t.LimitsErr == nil {
		t.LimitsErr = describeLimits(ctx, c, &t, -1) // the created topics' limits
	}
	return t, nil
}

// MissingError explains which topics of t do not exist and how to create
// them; nil if none is missing.
func MissingError(k KafkaConfig, t Topics) error {
	missing := t.Missing()
	if len(missing) == 0 {
		return nil
	}
	var b strings.Builder
	names := make([]string, len(missing))
	for i, x := range missing {
		names[i] = fmt.Sprintf("%s (%s)", x.Name, x.Key)
	}
	pronoun := "them"
	if len(missing) == 1 {
		pronoun = "it"
	}
	fmt.Fprintf(&b, "%s; create %s with\n", strings.Join(names, ", "), pronoun)
	for _, x := range missing {
		fmt.Fprintf(&b, "  kafka-topics.sh --bootstrap-server %s --create --topic %s --partitions %d --replication-factor %d\n",
			k.Brokers[0], x.Name, t.createPartitions(x), t.Replication)
	}
	b.WriteString("or start with --create-topics (kafka.create_topics: true) to have the filter create them")
	return fmt.Errorf("%w: %s", ErrMissingTopics, b.String())
}

// createPartitions is the partition count a missing topic is created with:
// the input's, or for the input itself the broker's num.partitions.
func (t Topics) createPartitions(x Topic) int {
	if x.Key != KeyInput {
		if n := t.List[0].Partitions; n > 0 {
			return n
		}
	}
	return max(t.BrokerPartitions, 1)
}

func createMissing(ctx context.Context, c *kafka.Client, t *Topics, log *zap.Logger) error {
	var create []kafka.TopicConfig
	for _, x := range t.Missing() {
		create = append(create, kafka.TopicConfig{Topic: x.Name, NumPartitions: t.createPartitions(x), ReplicationFactor: t.Replication})
	}
	resp, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: create})
	if err != nil {
		return fmt.Errorf("create topics: %w", err)
	}
	for i := range t.List {
		x := &t.List[i]
		if x.Partitions > 0 {
			continue
		}
		// Another instance starting at the same time may have created it.
		if err := resp.Errors[x.Name]; err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
			return fmt.Errorf("create topic %s (%s): %w", x.Name, x.Key, err)
		}
		x.Partitions, x.Created = t.createPartitions(*x), true
		log.Info("created topic (kafka.create_topics)", zap.String("topic", x.Name), zap.String("key", x.Key),
			zap.Int("partitions", x.Partitions), zap.Int("replication", t.Replication))
	}
	return nil
}

// WriteTopics prints t as a table: each topic's key, name, partitions and
// effective max.message.bytes.
func WriteTopics(w io.Writer, t Topics) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tTOPIC\tPARTITIONS\tMAX.MESSAGE.BYTES")
	for _, x := range t.List {
		parts, limit := strconv.Itoa(x.Partitions), strconv.Itoa(x.MaxMessageBytes)
		if x.Partitions == 0 {
			parts, limit = "missing", "-"
		} else if x.MaxMessageBytes == 0 {
			limit = "unknown"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", x.Key, x.Name, parts, limit)
	}
	return tw.Flush()
}
