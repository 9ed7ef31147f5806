package shard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// wireVersion is the first byte of every probe-topic and answer record; a
// record of another version is refused, never guessed at.
const wireVersion = 1

// Kinds of probe-topic records.
const (
	kindProbe = 1 // a document to decide and store
	kindFinal = 2 // the joined decision of a stored document
)

// errWire wraps every decoding error.
var errWire = errors.New("shard: malformed record")

// probe is one document's lookup in one shard.
type probe struct {
	reply int       // input partition: the answers partition
	doc   state.Doc // ID, Source, URL, Time, ContentHash, Sketch, and the keys routed here as Bands
}

// final is the decision a front joined for a document a shard stores.
type final struct {
	source string
	hash   uint64
	dec    stream.Decision
}

// answer is one shard's decision on one probe.
type answer struct {
	shard  int
	source string
	hash   uint64
	dec    stream.Decision
}

func appendProbe(dst []byte, p *probe) []byte {
	d := &p.doc
	dst = append(dst, wireVersion, kindProbe)
	dst = binary.AppendUvarint(dst, uint64(p.reply))
	dst = appendString(dst, d.Source)
	dst = binary.BigEndian.AppendUint64(dst, uint64(unixNano(d.Time)))
	dst = binary.BigEndian.AppendUint64(dst, d.ContentHash)
	dst = appendString(appendString(dst, d.ID), d.URL)
	dst = binary.AppendUvarint(dst, uint64(len(d.Bands)))
	for _, k := range d.Bands {
		dst = binary.BigEndian.AppendUint64(dst, k)
	}
	return append(dst, d.Sketch...)
}

func appendFinal(dst []byte, f *final) []byte {
	dst = append(dst, wireVersion, kindFinal)
	dst = appendString(dst, f.source)
	dst = binary.BigEndian.AppendUint64(dst, f.hash)
	return appendDecision(dst, &f.dec)
}

func appendAnswer(dst []byte, a *answer) []byte {
	dst = append(dst, wireVersion)
	dst = binary.AppendUvarint(dst, uint64(a.shard))
	dst = appendString(dst, a.source)
	dst = binary.BigEndian.AppendUint64(dst, a.hash)
	return appendDecision(dst, &a.dec)
}

func appendDecision(dst []byte, d *stream.Decision) []byte {
	var replayed byte
	if d.Replayed {
		replayed = 1
	}
	dst = append(dst, byte(d.Verdict), replayed)
	dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.Similarity)))
	dst = binary.BigEndian.AppendUint64(dst, d.Cluster)
	dst = appendString(dst, d.Of)
	dst = binary.BigEndian.AppendUint64(dst, uint64(unixNano(d.OfTime)))
	return appendString(dst, d.OfSource)
}

// unixNano encodes a time as its Unix nanoseconds, the zero time as 0
// (reader.time decodes 0 as the zero time).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func appendString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// reader decodes a record with a sticky error: after the first failure every
// read returns zero values and err says where it went wrong.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d of %d", errWire, what, r.off, len(r.b))
	}
}

func (r *reader) byte1(what string) byte {
	if r.err != nil || r.off >= len(r.b) {
		r.fail(what)
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.off += n
	return v
}

func (r *reader) uint64(what string) uint64 {
	if r.err != nil || len(r.b)-r.off < 8 {
		r.fail(what)
		return 0
	}
	r.off += 8
	return binary.BigEndian.Uint64(r.b[r.off-8:])
}

func (r *reader) string(what string) string {
	n := r.uvarint(what)
	if r.err != nil || n > uint64(len(r.b)-r.off) {
		r.fail(what)
		return ""
	}
	r.off += int(n)
	return string(r.b[r.off-int(n) : r.off])
}

func (r *reader) time(what string) time.Time {
	ns := int64(r.uint64(what))
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

func (r *reader) decision() stream.Decision {
	d := stream.Decision{Verdict: stream.Verdict(r.byte1("verdict")), Replayed: r.byte1("replayed") == 1}
	if r.err == nil && len(r.b)-r.off < 4 {
		r.fail("similarity")
	}
	if r.err == nil {
		d.Similarity = float64(math.Float32frombits(binary.BigEndian.Uint32(r.b[r.off:])))
		r.off += 4
	}
	d.Cluster = r.uint64("cluster")
	d.Of = r.string("of")
	d.OfTime = r.time("of time")
	d.OfSource = r.string("of source")
	return d
}

// decodeLogRecord decodes a probe-topic record: a probe or a final.
func decodeLogRecord(v []byte) (kind byte, p probe, f final, err error) {
	r := &reader{b: v}
	if ver := r.byte1("version"); r.err == nil && ver != wireVersion {
		return 0, p, f, fmt.Errorf("%w: version %d, this build reads %d", errWire, ver, wireVersion)
	}
	switch kind = r.byte1("kind"); kind {
	case kindProbe:
		p = decodeProbe(r)
	case kindFinal:
		f = final{source: r.string("source"), hash: r.uint64("hash")}
		f.dec = r.decision()
	default:
		r.fail(fmt.Sprintf("kind %d", kind))
	}
	if r.err == nil && kind == kindFinal && r.off != len(v) {
		r.fail("trailing bytes")
	}
	return kind, p, f, r.err
}

func decodeProbe(r *reader) probe {
	p := probe{reply: int(r.uvarint("reply partition"))}
	d := &p.doc
	d.Source = r.string("source")
	d.Time = r.time("time")
	d.ContentHash = r.uint64("hash")
	d.ID, d.URL = r.string("id"), r.string("url")
	n := r.uvarint("key count")
	if r.err == nil && n > uint64(len(r.b)-r.off)/8 {
		r.fail("key count")
	}
	if r.err == nil {
		d.Bands = make([]uint64, n)
		for i := range d.Bands {
			d.Bands[i] = r.uint64("key")
		}
		d.Sketch = append([]byte(nil), r.b[r.off:]...)
		r.off = len(r.b)
	}
	return p
}

func decodeAnswer(v []byte) (answer, error) {
	r := &reader{b: v}
	if ver := r.byte1("version"); r.err == nil && ver != wireVersion {
		return answer{}, fmt.Errorf("%w: version %d, this build reads %d", errWire, ver, wireVersion)
	}
	a := answer{shard: int(r.uvarint("shard")), source: r.string("source"), hash: r.uint64("hash")}
	a.dec = r.decision()
	if r.err == nil && r.off != len(v) {
		r.fail("trailing bytes")
	}
	return a, r.err
}

// PostingsOf returns how many index keys a probe-log record routes to its
// shard — the postings it adds there — or 0 for a final or a record that
// does not decode: the measure of shard balance.
func PostingsOf(v []byte) int {
	kind, p, _, err := decodeLogRecord(v)
	if err != nil || kind != kindProbe {
		return 0
	}
	return len(p.doc.Bands)
}
