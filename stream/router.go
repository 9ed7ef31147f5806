package stream

import (
	"strconv"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/prepare"
)

// Output header names (contract: DESIGN.md, "Output headers").
const (
	HeaderVerdict    = "dedup.verdict"
	HeaderOf         = "dedup.of"
	HeaderSimilarity = "dedup.similarity"
	HeaderCluster    = "dedup.cluster"
	HeaderSketch     = "dedup.sketch"
	// HeaderCharset names the encoding the page was read in (e.g.
	// windows-1251), when it was not UTF-8, followed by "; detected" when
	// the encoding was detected from the bytes rather than named
	// (prepare.Record.CharsetHeader). The value itself is forwarded
	// unchanged.
	HeaderCharset = "dedup.charset"
)

// Headers set on a dead letter that had to be cut to fit decode.max_message_bytes.
const (
	// HeaderOriginalBytes holds the full size of the value that was cut.
	HeaderOriginalBytes = "dedup.original_bytes"
	// HeaderDroppedHeaders holds how many of the record's own headers were
	// dropped because they alone exceeded the cap.
	HeaderDroppedHeaders = "dedup.dropped_headers"
)

// Dead-letter header names, as Kafka Connect writes them, so existing DLQ tooling works.
const (
	HeaderErrTopic     = "__connect.errors.topic"
	HeaderErrPartition = "__connect.errors.partition"
	HeaderErrOffset    = "__connect.errors.offset"
	HeaderErrStage     = "__connect.errors.stage"
	HeaderErrClass     = "__connect.errors.exception.class.name"
	HeaderErrMessage   = "__connect.errors.exception.message"
)

// outcome is what happened to one input record: its Decision, or the input
// error that makes it Invalid.
type outcome struct {
	Decision
	charset string              // Record.Charset: the page's encoding when not UTF-8
	err     *prepare.InputError // set when Verdict is Invalid
}

// router builds the output messages for outcomes.
type router struct {
	kafka   KafkaConfig
	maxVal  int // decode.max_message_bytes: the most a dead letter may weigh
	mode    Mode
	version string // sketch version for dedup.sketch
}

// route returns the message to write for in with outcome o, or ok=false when the
// record is dropped (drop mode, no duplicates topic).
func (r router) route(in *kafka.Message, o *outcome) (kafka.Message, bool) {
	out := kafka.Message{Key: in.Key, Value: in.Value, Time: in.Time}
	if o.Verdict == Invalid {
		out.Topic = r.kafka.DeadLetter
		out.Headers = r.errorHeaders(in, o.err)
		r.fit(&out, in, o.err)
		return out, true
	}
	out.Topic = r.kafka.Output
	if r.mode == ModeDrop && o.Verdict.Duplicate() {
		if r.kafka.Duplicates == "" {
			return kafka.Message{}, false
		}
		out.Topic = r.kafka.Duplicates
	}
	out.Headers = r.verdictHeaders(in.Headers, o)
	return out, true
}

// fit cuts a dead letter that would weigh more than decode.max_message_bytes,
// which the broker could refuse, stalling the stream: first the value (its
// full size goes in dedup.original_bytes), then, if the record's own headers are
// what is too big, those (their count goes in dedup.dropped_headers).
func (r router) fit(out, in *kafka.Message, e *prepare.InputError) {
	if prepare.MessageSize(out) <= r.maxVal {
		return
	}
	cut := kafka.Header{Key: HeaderOriginalBytes, Value: strconv.AppendInt(nil, int64(len(out.Value)), 10)}
	out.Headers = append(out.Headers, cut)
	room := r.maxVal - prepare.MessageSize(out) + len(out.Value)
	out.Value = out.Value[:max(room, 0)]
	if room >= 0 {
		return
	}
	dropped := kafka.Header{Key: HeaderDroppedHeaders, Value: strconv.AppendInt(nil, int64(len(in.Headers)), 10)}
	out.Headers = append(r.connectHeaders(nil, in, e), cut, dropped)
	if room = r.maxVal - prepare.MessageSize(out); room < 0 {
		out.Key = out.Key[:max(0, len(out.Key)+room)] // a key alone over the cap
	}
}

func (r router) verdictHeaders(orig []kafka.Header, o *outcome) []kafka.Header {
	h := make([]kafka.Header, 0, len(orig)+6)
	h = append(h, withoutPrefix(orig, "dedup.")...)
	h = append(h, kafka.Header{Key: HeaderVerdict, Value: []byte(o.Verdict.String())})
	if o.Of != "" {
		h = append(h,
			kafka.Header{Key: HeaderOf, Value: []byte(o.Of)},
			kafka.Header{Key: HeaderSimilarity, Value: strconv.AppendFloat(nil, o.Similarity, 'f', 3, 64)})
	}
	h = append(h,
		kafka.Header{Key: HeaderCluster, Value: strconv.AppendUint(nil, o.Cluster, 10)},
		kafka.Header{Key: HeaderSketch, Value: []byte(r.version)})
	if o.charset != "" {
		h = append(h, kafka.Header{Key: HeaderCharset, Value: []byte(o.charset)})
	}
	return h
}

func (r router) errorHeaders(in *kafka.Message, e *prepare.InputError) []kafka.Header {
	h := make([]kafka.Header, 0, len(in.Headers)+6)
	h = append(h, withoutPrefix(in.Headers, "__connect.errors.")...)
	return r.connectHeaders(h, in, e)
}

// connectHeaders appends the error headers Kafka Connect writes to dead letters.
func (r router) connectHeaders(h []kafka.Header, in *kafka.Message, e *prepare.InputError) []kafka.Header {
	return append(h,
		kafka.Header{Key: HeaderErrTopic, Value: []byte(in.Topic)},
		kafka.Header{Key: HeaderErrPartition, Value: strconv.AppendInt(nil, int64(in.Partition), 10)},
		kafka.Header{Key: HeaderErrOffset, Value: strconv.AppendInt(nil, in.Offset, 10)},
		kafka.Header{Key: HeaderErrStage, Value: []byte(e.Stage)},
		kafka.Header{Key: HeaderErrClass, Value: []byte(e.Class)},
		kafka.Header{Key: HeaderErrMessage, Value: []byte(e.Msg)})
}

// withoutPrefix drops incoming headers we are about to set, so a record that
// passes through dedupstream twice carries one set of verdict headers.
func withoutPrefix(hs []kafka.Header, prefix string) []kafka.Header {
	out := hs[:0:0]
	for _, h := range hs {
		if len(h.Key) < len(prefix) || h.Key[:len(prefix)] != prefix {
			out = append(out, h)
		}
	}
	return out
}
