package shard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// CollectOptions say where a sharded filter's sequence log is and how its
// documents were sketched.
type CollectOptions struct {
	Kafka    stream.KafkaConfig // Brokers, Group (the filter's kafka.group), ClientID
	Security stream.Security
	// Method must be the filter's sketch method: the probes hold its sketches.
	Method lsh.Method
	// Containment is as stream.DeciderOptions.Containment.
	Containment float64
	// Batch is how many documents are decided and stored per write.
	Batch  int
	Logger *zap.Logger
}

// CollectStats count what Collect read and stored.
type CollectStats struct {
	Records   int64 // sequence-log records read
	Documents int   // distinct documents stored
	Malformed int64 // records skipped as undecodable
	Finals    int64 // finals read (documents the fronts settled), not needed here
}

// Collect reads a sharded filter's whole index from its sequence log — from
// its first offset up to the end it has when Collect starts — and stores
// each document once in st, a single-instance store, deciding them in the
// log's order (each at its first append) with the same Decider as a single
// instance. The result is what the shards decided, in one state directory:
// what one filter that read the documents in that order holds, for offline
// cluster and report, state backup, or a new filter (re-sharding). Every
// probe carries its document whole (sketch, URL, index keys). Verdicts are
// decided again rather than taken from the finals: a final carries a
// verdict only where some shard's answer differed, and none at all for a
// document that reached one shard. The
// documents are held in memory until all are read (about their sketch and
// strings each).
func Collect(ctx context.Context, o CollectOptions, st *state.Store) (CollectStats, error) {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	var stats CollectStats
	docs, err := readDocuments(ctx, o, &stats)
	if err != nil {
		return stats, err
	}
	dec := stream.NewDecider(st, o.Method, stream.DeciderOptions{Containment: o.Containment})
	batch := max(o.Batch, 1)
	for i := 0; i < len(docs); i += batch {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		d, err := dec.DecideBatch(docs[i:min(i+batch, len(docs))])
		if err != nil {
			return stats, err
		}
		if err := st.Put(d.Stage); err != nil {
			return stats, err
		}
		dec.Retire(d)
		stats.Documents += len(d.Stage)
	}
	return stats, nil
}

// Order returns the input positions (Source) of a sharded filter's
// documents in the order of their first append to its sequence log — the
// order its shards decided them in — each once, up to the log's end when
// called. A single instance that reads the same documents in this order
// gives the verdicts the sharded filter gave.
func Order(ctx context.Context, o CollectOptions) ([]string, error) {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	docs, err := readDocuments(ctx, o, &CollectStats{})
	out := make([]string, len(docs))
	for i := range docs {
		out[i] = docs[i].Source
	}
	return out, err
}

// readDocuments reads the sequence log and returns its documents in the
// order of their first append, each once.
func readDocuments(ctx context.Context, o CollectOptions, stats *CollectStats) ([]state.Doc, error) {
	if len(o.Kafka.Brokers) == 0 {
		return nil, errors.New("collect: no brokers")
	}
	topic := SequenceTopic(o.Kafka.Group)
	type docKey struct {
		source string
		hash   uint64
	}
	seen := make(map[docKey]bool)
	var docs []state.Doc
	err := ReadPartition(ctx, o.Security.Dialer(o.Kafka.ClientID), o.Kafka.Brokers[0], topic, 0, func(m *kafka.Message) {
		stats.Records++
		rec, err := decodeLogRecord(m.Value)
		if err != nil {
			stats.Malformed++
			o.Logger.Warn("skipping a malformed sequence-log record", zap.Int64("offset", m.Offset), zap.Error(err))
			return
		}
		stats.Finals += int64(len(rec.finals))
		for _, p := range rec.probes {
			if k := (docKey{p.doc.Source, p.doc.ContentHash}); !seen[k] {
				seen[k] = true
				docs = append(docs, p.doc)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read the sequence log %s of group %s: %w", topic, o.Kafka.Group, err)
	}
	o.Logger.Info("sequence log read", zap.Int64("records", stats.Records), zap.Int("documents", len(docs)))
	return docs, nil
}

// ReadPartition calls fn for every record of one partition of topic, from
// its first offset to the end it has when called, through the partition's
// leader (found from broker).
func ReadPartition(ctx context.Context, dialer *kafka.Dialer, broker, topic string, partition int, fn func(*kafka.Message)) error {
	conn, err := dialer.DialLeader(ctx, "tcp", broker, topic, partition)
	if err != nil {
		return err
	}
	defer conn.Close()
	first, end, err := conn.ReadOffsets()
	if err != nil {
		return err
	}
	for off := first; off < end; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := conn.Seek(off, kafka.SeekAbsolute); err != nil {
			return err
		}
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		batch := conn.ReadBatch(1, 16<<20)
		for off < end {
			m, err := batch.ReadMessage()
			if err != nil {
				break
			}
			fn(&m)
			off = m.Offset + 1
		}
		if err := batch.Close(); err != nil {
			return err
		}
	}
	return nil
}

// CollectInto is Collect into a new single-instance state opened with so:
// so.Dir must not exist or be empty, and the store, which runs no value-log
// GC meanwhile, is closed when CollectInto returns.
func CollectInto(ctx context.Context, o CollectOptions, so state.Options) (CollectStats, error) {
	if entries, err := os.ReadDir(so.Dir); err == nil && len(entries) > 0 {
		return CollectStats{}, fmt.Errorf("state collect: %s is not empty; name a new directory", so.Dir)
	}
	so.GCInterval = -1
	st, err := state.Open(so)
	if err != nil {
		return CollectStats{}, err
	}
	stats, err := Collect(ctx, o, st)
	return stats, errors.Join(err, st.Close())
}
