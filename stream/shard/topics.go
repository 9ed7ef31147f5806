package shard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"
)

// Names of a sharded filter's internal topics and shard-owning group, all
// derived from its consumer group G, so one G is one logical filter.
func SequenceTopic(group string) string { return group + ".sequence" }
func ShardsTopic(group string) string   { return group + ".shards" }
func AnswersTopic(group string) string  { return group + ".answers" }
func IndexGroup(group string) string    { return group + ".index" }

// legacyProbesTopic is the per-shard probe log of builds before the sequence
// log; a group that has one was served by such a build.
func legacyProbesTopic(group string) string { return group + ".probes" }

// Topology is what EnsureTopics found: the partition counts every instance
// must agree on.
type Topology struct {
	Shards            int // partitions of the shards topic
	InputPartitions   int // partitions of the input and answer topics
	SequenceRetention time.Duration
	AnswersRetention  time.Duration
}

// sequenceRetention is the sequence log's retention for a state TTL: the log
// must outlive every document a shard may still hold, so forever without a
// TTL, else the TTL plus a day of slack for a shard that is rebuilt late.
func sequenceRetention(ttl time.Duration) time.Duration {
	if ttl == 0 {
		return -1
	}
	return ttl + 24*time.Hour
}

// EnsureTopics creates the internal topics of group if they do not exist —
// the one-partition sequence log with the retention the design needs, the
// shards topic of cfg.Shards partitions, the answer topic of as many
// partitions as the input — and refuses to go on if they exist with other
// partition counts, if the sequence log forgets documents the state still
// holds, or if the group has the probe topic of an earlier build's layout.
func EnsureTopics(ctx context.Context, c *kafka.Client, input, group string, cfg Config, ttl time.Duration) (Topology, error) {
	meta, err := c.Metadata(ctx, &kafka.MetadataRequest{}) // all topics: naming one could auto-create it
	if err != nil {
		return Topology{}, fmt.Errorf("read topic metadata: %w", err)
	}
	parts := make(map[string]int)
	for _, t := range meta.Topics {
		if t.Error == nil {
			parts[t.Name] = len(t.Partitions)
		}
	}
	top := Topology{Shards: cfg.Shards, InputPartitions: parts[input], SequenceRetention: sequenceRetention(ttl), AnswersRetention: cfg.AnswersRetention}
	if top.InputPartitions == 0 {
		return top, fmt.Errorf("input topic %q: not found; create it before starting a sharded filter (its partition count sizes %s)", input, AnswersTopic(group))
	}
	if _, ok := parts[legacyProbesTopic(group)]; ok {
		return top, fmt.Errorf("group %s has the topic %s of an earlier build's sharded layout, which this build does not read: "+
			"start this build under a new kafka.group (docs/scale-out.md, \"Moving a fleet from an earlier layout\")", group, legacyProbesTopic(group))
	}
	want := []kafka.TopicConfig{
		topicConfig(SequenceTopic(group), 1, top.SequenceRetention),
		topicConfig(ShardsTopic(group), cfg.Shards, time.Hour), // never written: its partitions are the shards
		topicConfig(AnswersTopic(group), top.InputPartitions, top.AnswersRetention),
	}
	if cfg.Standbys > 0 { // never written: its partitions are the standby slots
		want = append(want, topicConfig(StandbysTopic(group), cfg.Shards, time.Hour))
	}
	var create []kafka.TopicConfig
	for _, t := range want {
		n, ok := parts[t.Topic]
		switch {
		case !ok:
			create = append(create, t)
		case n != t.NumPartitions:
			return top, fmt.Errorf("topic %s has %d partitions, this filter needs %d (one for the sequence log, index.shards for the shards topic, the input's partitions for the answer topic): "+
				"index.shards cannot change on a live filter; see docs/scale-out.md to re-shard", t.Topic, n, t.NumPartitions)
		}
	}
	replication := cfg.Replication
	if replication == 0 {
		replication = min(3, max(len(meta.Brokers), 1))
	}
	if err := createTopics(ctx, c, create, replication); err != nil {
		return top, err
	}
	return top, checkRetention(ctx, c, []retentionNeed{
		{SequenceTopic(group), top.SequenceRetention, "a shard rebuilt from it needs %s (state.ttl plus a day, or forever without a TTL)"},
		{AnswersTopic(group), minAnswersRetention, "a front must find its answers there: at least %s"},
	})
}

// minAnswersRetention is the least retention of an existing answer topic (as
// index.answers_retention's least value): answers are read within
// milliseconds, but one deleted first leaves its document waiting for a resend.
const minAnswersRetention = time.Minute

// retentionNeed is how long topic must keep records, and why.
type retentionNeed struct {
	topic string
	need  time.Duration // negative: forever
	why   string        // a format with one %s: the need
}

func topicConfig(name string, partitions int, retention time.Duration) kafka.TopicConfig {
	ms := int64(-1)
	if retention > 0 {
		ms = retention.Milliseconds()
	}
	return kafka.TopicConfig{Topic: name, NumPartitions: partitions, ConfigEntries: []kafka.ConfigEntry{
		{ConfigName: "retention.ms", ConfigValue: strconv.FormatInt(ms, 10)},
		{ConfigName: "cleanup.policy", ConfigValue: "delete"},
	}}
}

func createTopics(ctx context.Context, c *kafka.Client, topics []kafka.TopicConfig, replication int) error {
	if len(topics) == 0 {
		return nil
	}
	for i := range topics {
		topics[i].ReplicationFactor = replication
	}
	resp, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: topics})
	if err != nil {
		return fmt.Errorf("create internal topics: %w", err)
	}
	for name, err := range resp.Errors {
		// Another instance starting at the same time may have created it.
		if err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
			return fmt.Errorf("create topic %s: %w", name, err)
		}
	}
	return nil
}

// checkRetention refuses topics whose retention is shorter than they need —
// a sequence log that would rebuild shards without documents the state still
// holds, an answer topic that could drop answers before they are read — in
// one DescribeConfigs request.
func checkRetention(ctx context.Context, c *kafka.Client, needs []retentionNeed) error {
	req := &kafka.DescribeConfigsRequest{}
	for _, n := range needs {
		req.Resources = append(req.Resources, kafka.DescribeConfigRequestResource{
			ResourceType: kafka.ResourceTypeTopic, ResourceName: n.topic, ConfigNames: []string{"retention.ms"},
		})
	}
	resp, err := describeNew(ctx, c, req)
	if err != nil {
		return fmt.Errorf("read the retention of the internal topics: %w", err)
	}
	for _, r := range resp.Resources {
		i := slices.IndexFunc(needs, func(n retentionNeed) bool { return n.topic == r.ResourceName })
		if i < 0 {
			continue
		}
		n := needs[i]
		if r.Error != nil {
			return fmt.Errorf("read the retention of %s: %w", n.topic, r.Error)
		}
		for _, e := range r.ConfigEntries {
			if e.ConfigName != "retention.ms" {
				continue
			}
			ms, err := strconv.ParseInt(e.ConfigValue, 10, 64)
			if err != nil {
				return fmt.Errorf("topic %s: retention.ms %q: %w", n.topic, e.ConfigValue, err)
			}
			if !covers(ms, n.need) {
				why := fmt.Sprintf(n.why, retentionString(n.need.Milliseconds()))
				return fmt.Errorf("topic %s keeps records for %s, but %s: raise its retention.ms (e.g. kafka-configs --alter --add-config retention.ms=%d)",
					n.topic, retentionString(ms), why, max(n.need.Milliseconds(), -1))
			}
		}
	}
	return nil
}

// newTopicWait is how long describeNew waits for topics just created to be
// known to the broker it asks.
const newTopicWait = 30 * time.Second

// describeNew is DescribeConfigs on topics that may have just been created,
// by this instance or one starting beside it: a real broker answers
// UNKNOWN_TOPIC_OR_PARTITION until the controller's metadata reaches it, so
// that answer is asked again, for up to newTopicWait.
func describeNew(ctx context.Context, c *kafka.Client, req *kafka.DescribeConfigsRequest) (*kafka.DescribeConfigsResponse, error) {
	deadline := time.Now().Add(newTopicWait)
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
		resp, err := c.DescribeConfigs(ctx, req)
		if err != nil {
			return nil, err
		}
		unknown := slices.ContainsFunc(resp.Resources, func(r kafka.DescribeConfigResponseResource) bool {
			return errors.Is(r.Error, kafka.UnknownTopicOrPartition)
		})
		if !unknown || time.Now().After(deadline) {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
	}
}

// covers reports whether a retention of ms (negative: forever) keeps records for need.
func covers(ms int64, need time.Duration) bool {
	if ms < 0 {
		return true
	}
	return need >= 0 && time.Duration(ms)*time.Millisecond >= need
}

func retentionString(ms int64) string {
	if ms < 0 {
		return "forever"
	}
	return (time.Duration(ms) * time.Millisecond).String()
}
