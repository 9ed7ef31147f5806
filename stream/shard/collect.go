package shard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// CollectOptions say where a sharded filter's probe log is and how its
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
	Records   int64 // probe-log records read, over every partition
	Documents int   // distinct documents stored
	Malformed int64 // records skipped as undecodable
	Finals    int64 // finals read (verdicts the fronts joined), not needed here
}

// Collect reads a sharded filter's whole index from its probe log — every
// partition from its first offset up to the end it has when Collect starts —
// and stores each document once in st, a single-instance store, deciding them
// in the global order with the same Decider as a single instance. The result
// is what one filter that saw the same documents in that order would hold:
// the whole index in one state directory, for offline cluster and report,
// state backup, or a new filter (re-sharding).
//
// A document's probes (one per shard its keys reach) all carry its sketch,
// but only the probe to its exact key's shard carries the full sketch and the
// URL (FrontOptions.Method); that one is kept, and the index keys are derived
// again from its sketch. Verdicts are decided again rather than taken from the finals: the
// log holds only the finals that differed from some shard's answer, not
// every verdict. The documents are held in memory until all are read (about
// their sketch and strings each).
func Collect(ctx context.Context, o CollectOptions, st *state.Store) (CollectStats, error) {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	var stats CollectStats
	docs, err := readDocuments(ctx, o, &stats)
	if err != nil {
		return stats, err
	}
	slices.SortFunc(docs, func(a, b state.Doc) int {
		switch {
		case stream.Before(&a, &b):
			return -1
		case stream.Before(&b, &a):
			return 1
		}
		return 0
	})
	dec := stream.NewDecider(st, o.Method, stream.DeciderOptions{Containment: o.Containment})
	batch := max(o.Batch, 1)
	for i := 0; i < len(docs); i += batch {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		chunk := docs[i:min(i+batch, len(docs))]
		for j := range chunk {
			if err := collectedKeys(o.Method, &chunk[j]); err != nil {
				return stats, err
			}
		}
		d, err := dec.DecideBatch(chunk)
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

// collectedKeys sets d's index keys: those of its sketch (lsh.KeysOf: in band
// order, as a single-instance store keeps them), or, for a method that
// cannot read them back but keys a set (record mode), the union of its
// probes' keys, which d.Bands holds.
func collectedKeys(m lsh.Method, d *state.Doc) error {
	keys, err := lsh.KeysOf(m, nil, d.Sketch)
	switch {
	case err == nil:
		d.Bands = keys
	case m.KeyBands() == 0 && !errors.Is(err, lsh.ErrSketch):
		slices.Sort(d.Bands)
		d.Bands = slices.Compact(d.Bands)
	default:
		return fmt.Errorf("document %q (%s): %w; is sketch.* (or record.*) the filter's configuration?", d.ID, d.Source, err)
	}
	return nil
}

// readDocuments reads every partition of the probe topic and returns one
// document per source.
func readDocuments(ctx context.Context, o CollectOptions, stats *CollectStats) ([]state.Doc, error) {
	if len(o.Kafka.Brokers) == 0 {
		return nil, errors.New("collect: no brokers")
	}
	topic := ProbesTopic(o.Kafka.Group)
	dialer := o.Security.Dialer(o.Kafka.ClientID)
	conn, err := dialer.DialContext(ctx, "tcp", o.Kafka.Brokers[0])
	if err != nil {
		return nil, err
	}
	parts, err := conn.ReadPartitions(topic)
	conn.Close()
	if err != nil {
		return nil, fmt.Errorf("probe log %s of group %s: %w", topic, o.Kafka.Group, err)
	}
	seen := make(map[string]int) // source → index in docs
	var docs []state.Doc
	for _, p := range parts {
		err := ReadPartition(ctx, dialer, o.Kafka.Brokers[0], topic, p.ID, func(m *kafka.Message) {
			stats.Records++
			rec, err := decodeLogRecord(m.Value)
			if err != nil {
				stats.Malformed++
				o.Logger.Warn("skipping a malformed probe-log record", zap.Int("partition", p.ID), zap.Int64("offset", m.Offset), zap.Error(err))
				return
			}
			stats.Finals += int64(len(rec.finals))
			for _, pr := range rec.probes {
				i, dup := seen[pr.doc.Source]
				keys := pr.doc.Bands
				switch {
				case !dup:
					seen[pr.doc.Source], i = len(docs), len(docs)
					docs = append(docs, pr.doc)
					docs[i].Bands = nil
				case slices.Contains(keys, exactKey(pr.doc.ContentHash)): // the whole document
					union := docs[i].Bands
					docs[i] = pr.doc
					docs[i].Bands = union
				}
				for _, k := range keys { // the union of its probes' keys: all of them but the exact key
					if k != exactKey(pr.doc.ContentHash) {
						docs[i].Bands = append(docs[i].Bands, k)
					}
				}
			}
		})
		if err != nil {
			return nil, fmt.Errorf("read %s partition %d: %w", topic, p.ID, err)
		}
		o.Logger.Info("probe-log partition read", zap.Int("partition", p.ID), zap.Int64("records", stats.Records), zap.Int("documents", len(docs)))
	}
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
