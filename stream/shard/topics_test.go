package shard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/embedded"
)

// TestEnsureTopicsRefuses checks the start-up checks of the internal topics on
// the embedded broker: created with S and the input's partitions; accepted
// again as they are; refused with another index.shards, when the sequence
// log keeps records for less than the state's TTL needs, when an answer topic
// made by hand keeps them for less than a minute, and when the group has the
// probe topic of an earlier build's layout.
func TestEnsureTopicsRefuses(t *testing.T) {
	b, err := embedded.Start(embedded.Options{Topics: []string{"pages"}, Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c := &kafka.Client{Addr: kafka.TCP(b.Addr())}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := Config{Shards: 4}
	cfg.EnsureDefaults()
	top, err := EnsureTopics(ctx, c, "pages", "g", cfg, time.Hour)
	if err != nil || top.Shards != 4 || top.InputPartitions != 3 {
		t.Fatalf("first start: %+v, %v", top, err)
	}
	conn, err := kafka.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for topic, want := range map[string]int{"g.sequence": 1, "g.shards": 4, "g.answers": 3} {
		if ps, err := conn.ReadPartitions(topic); err != nil || len(ps) != want {
			t.Errorf("%s: %d partitions (%v), want %d", topic, len(ps), err, want)
		}
	}
	if _, err := EnsureTopics(ctx, c, "pages", "g", cfg, time.Hour); err != nil {
		t.Fatalf("second start, same settings: %v", err)
	}
	other := cfg
	other.Shards = 8
	if _, err := EnsureTopics(ctx, c, "pages", "g", other, time.Hour); err == nil || !strings.Contains(err.Error(), "g.shards has 4 partitions") {
		t.Errorf("another index.shards: %v, want a refusal naming g.shards", err)
	}
	// Created for a 1h TTL (kept 25h); without a TTL the log must be kept forever.
	if _, err := EnsureTopics(ctx, c, "pages", "g", cfg, 0); err == nil || !strings.Contains(err.Error(), "retention.ms") {
		t.Errorf("state.ttl 0 on a sequence log kept 25h: %v, want a refusal naming retention.ms", err)
	}
	if err := createTopics(ctx, c, []kafka.TopicConfig{topicConfig("old.probes", 4, -1)}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureTopics(ctx, c, "pages", "old", cfg, 0); err == nil || !strings.Contains(err.Error(), "old.probes") || !strings.Contains(err.Error(), "new kafka.group") {
		t.Errorf("a group of the earlier layout: %v, want a refusal naming old.probes and a new group", err)
	}
	short := topicConfig(AnswersTopic("a"), 3, time.Second)
	if err := createTopics(ctx, c, []kafka.TopicConfig{short}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureTopics(ctx, c, "pages", "a", cfg, time.Hour); err == nil || !strings.Contains(err.Error(), "a.answers keeps records for 1s") {
		t.Errorf("an answer topic kept 1s: %v, want a refusal naming a.answers", err)
	}
	if _, err := EnsureTopics(ctx, c, "nope", "h", cfg, 0); err == nil || !strings.Contains(err.Error(), `input topic "nope"`) {
		t.Errorf("missing input topic: %v", err)
	}
}
