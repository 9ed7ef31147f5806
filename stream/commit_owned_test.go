package stream

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"go.uber.org/zap/zaptest"
)

// TestCommitSkipsPartitionsOfAnotherMember: a batch fetched before a
// rebalance and committed after it must not set back the committed offset of
// a partition that another member now owns. Member A reads both partitions
// alone, member B joins and takes one of them, reads it to its end and
// commits; then A commits its stale batch, whose records of B's partition
// are behind B's. B's partition must stay committed to its end — without the
// filter kafka-go committed A's stale offset in the new generation, and a
// sharded fleet that had read to the end stalled with lag for good.
func TestCommitSkipsPartitionsOfAnotherMember(t *testing.T) {
	// kfake itself: the embedded package and streamtest import this one.
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "in"), kfake.GroupMinSessionTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	var msgs []kafka.Message
	for i := range 40 {
		msgs = append(msgs, kafka.Message{Key: fmt.Appendf(nil, "k%d", i), Value: []byte("v")})
	}
	w := &kafka.Writer{Addr: kafka.TCP(addr), Topic: "in", Balancer: &kafka.Hash{}, BatchTimeout: time.Millisecond}
	if err := w.WriteMessages(context.Background(), msgs...); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var cfg Config
	cfg.Kafka.Brokers, cfg.Kafka.Group, cfg.Kafka.Input = []string{addr}, "g", "in"
	cfg.Kafka.SessionTimeout = time.Second
	cfg.EnsureDefaults()
	log := zaptest.NewLogger(t)
	member := func() *Pipeline {
		p := &Pipeline{cfg: cfg, log: log, m: newMetrics(prometheus.NewRegistry())}
		p.reader = newReader(cfg, Security{}, log, &p.member)
		t.Cleanup(func() { p.reader.Close() })
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	a := member()
	var stale []kafka.Message // A's batch: the first record of each partition
	for seen := map[int]bool{}; len(seen) < 2; {
		m, err := a.reader.FetchMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !seen[m.Partition] {
			seen[m.Partition] = true
			stale = append(stale, m)
		}
	}
	if got := len(a.member.owns(stale)); got != 2 {
		t.Fatalf("member A alone owns the partitions of %d of its 2 records, want both (kafka-go's subscription report read: %v)", got, a.member.known)
	}

	bm := member()
	fetched := make(chan kafka.Message, 64)
	go func() { // B's fetches join the group; A's reader rejoins by itself
		for {
			m, err := bm.reader.FetchMessage(ctx)
			if err != nil {
				close(fetched)
				return
			}
			fetched <- m
		}
	}()
	owned := func(p *Pipeline) (parts []int) {
		p.member.mu.Lock()
		defer p.member.mu.Unlock()
		for part := range p.member.owned {
			parts = append(parts, part)
		}
		return parts
	}
	for len(owned(a)) != 1 || len(owned(bm)) != 1 {
		if ctx.Err() != nil {
			t.Fatalf("no generation with one partition each: A owns %v, B %v", owned(a), owned(bm))
		}
		time.Sleep(10 * time.Millisecond)
	}
	theirs := owned(bm)[0]
	end := endOffset(t, ctx, addr, theirs)
	var last kafka.Message
	for last.Offset < end-1 || last.Partition != theirs {
		m, ok := <-fetched
		if !ok {
			t.Fatalf("B stopped fetching before the end of partition %d", theirs)
		}
		last = m
	}
	bm.commit(ctx, []kafka.Message{last})
	if got := committed(t, ctx, addr, theirs); got != end {
		t.Fatalf("B committed partition %d to %d, want its end %d", theirs, got, end)
	}

	a.commit(ctx, stale)
	if got := committed(t, ctx, addr, theirs); got != end {
		t.Fatalf("after A's stale commit, partition %d (B's) is committed to %d, want still its end %d", theirs, got, end)
	}
}

func endOffset(t *testing.T, ctx context.Context, addr string, part int) int64 {
	t.Helper()
	res, err := (&kafka.Client{Addr: kafka.TCP(addr)}).ListOffsets(ctx, &kafka.ListOffsetsRequest{
		Topics: map[string][]kafka.OffsetRequest{"in": {kafka.LastOffsetOf(part)}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Topics["in"][0].LastOffset
}

func committed(t *testing.T, ctx context.Context, addr string, part int) int64 {
	t.Helper()
	res, err := (&kafka.Client{Addr: kafka.TCP(addr)}).OffsetFetch(ctx, &kafka.OffsetFetchRequest{
		GroupID: "g", Topics: map[string][]int{"in": {part}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Topics["in"][0].CommittedOffset
}

// TestMembershipFollowsGenerations feeds membership the kafka-go events of
// generations (the subscription report in the shape kafka-go logs it: a map
// from a struct with a partition field to the start offset) and checks what
// it lets a commit keep.
func TestMembershipFollowsGenerations(t *testing.T) {
	type topicPartition struct {
		topic     string
		partition int32
	}
	var m membership
	log := m.follow(func(string, ...any) {})
	rec := func(part int, offset int64) kafka.Message { return kafka.Message{Partition: part, Offset: offset} }
	batch := []kafka.Message{rec(0, 3), rec(1, 7), rec(0, 9)}
	check := func(when string, want ...kafka.Message) {
		t.Helper()
		got := m.owns(batch)
		if len(got) != len(want) {
			t.Fatalf("%s: owns %v, want %v", when, got, want)
		}
		for i := range got {
			if got[i].Partition != want[i].Partition || got[i].Offset != want[i].Offset {
				t.Fatalf("%s: owns %v, want %v", when, got, want)
			}
		}
	}
	check("before any report", batch...)
	log(heartbeatStopped+" %s\n", "g")
	check("a heartbeat stopped before any report was read", batch...)
	log(heartbeatStarted+", %v [%v]", "g", time.Second)
	log(subscribed+": %+v", map[topicPartition]int64{{"in", 0}: -2, {"in", 1}: -2})
	check("owning both, nothing committed", batch...)
	log(heartbeatStopped+" %s\n", "g")
	check("between generations")
	log(subscribed+": %+v", map[topicPartition]int64{{"in", 0}: 5})
	check("owning partition 0 from offset 5", rec(0, 9))
	log(subscribed+": %+v", "not a map")
	check("a report that cannot be read", batch...)
}
