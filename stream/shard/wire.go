package shard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// wireVersion is the first byte of every sequence-log and answer record. A
// record of another version (the probe and answer records of builds before
// the sequence log were versions 1 and 2) is refused, never guessed at.
const wireVersion = 3

// Kinds of sequence-log records. A front writes batches: one record holds the
// probes (or finals) of many documents, so the log carries a record per front
// batch, not per document.
const (
	kindProbes         = 6 // a batch of probes: documents to decide and store, each with its index in its front batch
	kindUnindexedProbe = 3 // a batch of probes without their indexes (written by earlier builds; still read)
	kindFinals         = 4 // a batch of finals, each with its joined decision (written by earlier builds; still read)
	kindSettled        = 5 // a batch of finals: every document of a front batch that reached several shards
)

// answerVersion is the first byte of an answer record; its entries begin
// with their kind. (Answer records of wireVersion, all of one kind, are
// still read.)
const answerVersion = 4

// Kinds of answer entries. Most of a shard's answers say only that it does
// not store a document and has nothing it duplicates: those of one front
// batch go in one entry, by their indexes in the batch.
const (
	answerOne  = 0 // one document's answer
	answerNone = 1 // documents of one front batch the shard neither stores nor matched
)

// maxRecordBytes is where a batch record is closed and the next begun: well
// under Kafka's default max.message.bytes (1 MiB).
const maxRecordBytes = 256 << 10

// maxEntries is the most entries a record holds, so that an entry's index
// fits the low bits of its position (positionOf).
const maxEntries = 1<<posShift - 1

// posShift is how many low bits of a position hold the entry's index in its
// record; the offset is above them.
const posShift = 16

// positionOf is the place in the sequence log of the i-th entry of the
// record at offset: the order every shard decides in. It is never 0.
func positionOf(offset int64, i int) uint64 { return uint64(offset)<<posShift | uint64(i+1) }

// errWire wraps every decoding error.
var errWire = errors.New("shard: malformed record")

// probe is one document as a front appends it to the sequence log: every
// shard its keys reach applies it.
type probe struct {
	reply int       // input partition: the answers partition
	index int       // its place in its front batch (asked.waits); -1 in a kindUnindexedProbe record
	doc   state.Doc // ID, Source, URL, Time, ContentHash, Sketch, and its index keys as Bands
}

// final says that a front has joined, emitted and settled a document that
// reached several shards. When some shard answered otherwise than the
// joined decision, changed is set and dec is that decision; else every
// shard's answer, and the cluster it stored, is already the joined one.
type final struct {
	source  string
	hash    uint64
	changed bool
	dec     stream.Decision
}

// answer is one shard's decision on one probe.
type answer struct {
	shard       int
	source      string
	hash        uint64
	dec         stream.Decision
	provisional bool // the shard's cluster for it may still change (state.Doc.Provisional)
}

// nothing is a shard's answer to documents of one front batch that it does
// not store and has no match for: a Unique decision each, which the join
// passes over (answerNone).
type nothing struct {
	shard   int
	key     string // the front batch's key (batchKey)
	indexes []int  // the documents' places in it, ascending
}

// logRecord is a decoded sequence-log record: its probes or its finals, in
// the order written.
type logRecord struct {
	probes []probe
	finals []final
}

// packer packs entries into batch records of about maxRecordBytes: each
// record is a header, a 4-byte count and the entries, each prefixed by its
// length.
type packer struct {
	head    []byte // version (and kind)
	recs    [][]byte
	cur     []byte
	n       uint32
	scratch []byte
}

func newPacker(head ...byte) *packer { return &packer{head: head} }

// add appends one entry, encoded by body.
func (p *packer) add(body func(dst []byte) []byte) {
	if p.cur == nil {
		p.cur = append(append(make([]byte, 0, 4096), p.head...), 0, 0, 0, 0)
	}
	p.scratch = body(p.scratch[:0])
	p.cur = append(binary.AppendUvarint(p.cur, uint64(len(p.scratch))), p.scratch...)
	if p.n++; len(p.cur) >= maxRecordBytes || p.n == maxEntries {
		p.close()
	}
}

func (p *packer) close() {
	if p.cur != nil {
		binary.BigEndian.PutUint32(p.cur[len(p.head):], p.n)
		p.recs = append(p.recs, p.cur)
		p.cur, p.n = nil, 0
	}
}

// records returns the records packed.
func (p *packer) records() [][]byte {
	p.close()
	return p.recs
}

// packers pack entries into batch records by partition, one packer each.
type packers struct {
	head []byte
	by   map[int]*packer
}

func newPackers(head ...byte) *packers { return &packers{head: head, by: make(map[int]*packer)} }

// add appends one entry, encoded by body, to partition part's records.
func (ps *packers) add(part int, body func(dst []byte) []byte) {
	p := ps.by[part]
	if p == nil {
		p = newPacker(ps.head...)
		ps.by[part] = p
	}
	p.add(body)
}

// messages returns the records packed as messages to topic, partitions in
// order.
func (ps *packers) messages(topic string) []kafka.Message {
	var msgs []kafka.Message
	for _, part := range slices.Sorted(maps.Keys(ps.by)) {
		for _, v := range ps.by[part].records() {
			msgs = append(msgs, kafka.Message{Topic: topic, Partition: part, Value: v})
		}
	}
	return msgs
}

// answerPacker packs a shard's answers into records by answer partition:
// one document's answer an entry, the documents it has nothing for
// (nothing) an entry a front batch.
type answerPacker struct {
	by   *packers
	none map[int]*nothing // the entry being gathered, by partition
}

func newAnswerPacker() *answerPacker {
	return &answerPacker{by: newPackers(answerVersion), none: make(map[int]*nothing)}
}

// one adds a document's answer to partition part's records.
func (ap *answerPacker) one(part int, a *answer) {
	ap.by.add(part, func(dst []byte) []byte { return appendAnswerBody(dst, a) })
}

// nothingFor adds that shard has nothing for document index of the front
// batch key to partition part's records, with the batch's other documents
// added before it on part.
func (ap *answerPacker) nothingFor(part, shard int, key string, index int) {
	n := ap.none[part]
	if n != nil && (n.key != key || n.shard != shard || index <= n.indexes[len(n.indexes)-1] || len(n.indexes) == maxEntries) {
		ap.flush(part, n)
		n = nil
	}
	if n == nil {
		n = &nothing{shard: shard, key: key}
		ap.none[part] = n
	}
	n.indexes = append(n.indexes, index)
}

func (ap *answerPacker) flush(part int, n *nothing) {
	ap.by.add(part, func(dst []byte) []byte { return appendNothingBody(dst, n) })
	delete(ap.none, part)
}

// messages returns the records packed as messages to topic, partitions in
// order.
func (ap *answerPacker) messages(topic string) []kafka.Message {
	for part, n := range ap.none {
		ap.flush(part, n)
	}
	return ap.by.messages(topic)
}

func appendProbeBody(dst []byte, p *probe) []byte {
	d := &p.doc
	dst = binary.AppendUvarint(dst, uint64(p.reply))
	dst = binary.AppendUvarint(dst, uint64(p.index))
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

func appendFinalBody(dst []byte, f *final) []byte {
	dst = appendString(dst, f.source)
	dst = binary.BigEndian.AppendUint64(dst, f.hash)
	if !f.changed {
		return append(dst, 0)
	}
	return appendDecision(append(dst, 1), &f.dec, false)
}

func appendAnswerBody(dst []byte, a *answer) []byte {
	dst = binary.AppendUvarint(append(dst, answerOne), uint64(a.shard))
	dst = appendString(dst, a.source)
	dst = binary.BigEndian.AppendUint64(dst, a.hash)
	return appendDecision(dst, &a.dec, a.provisional)
}

func appendNothingBody(dst []byte, n *nothing) []byte {
	dst = binary.AppendUvarint(append(dst, answerNone), uint64(n.shard))
	dst = appendString(dst, n.key)
	dst = binary.AppendUvarint(dst, uint64(len(n.indexes)))
	prev := 0
	for _, i := range n.indexes {
		dst = binary.AppendUvarint(dst, uint64(i-prev))
		prev = i
	}
	return dst
}

// Decision flags: a stored answer, one whose cluster is provisional, and one
// followed by the document's own position (its home's answer: where it was
// first appended).
const (
	decReplayed    = 1
	decProvisional = 2
	decPos         = 4
)

func appendDecision(dst []byte, d *stream.Decision, provisional bool) []byte {
	var flags byte
	if d.Replayed {
		flags |= decReplayed
	}
	if provisional {
		flags |= decProvisional
	}
	if d.Pos != 0 {
		flags |= decPos
	}
	dst = append(dst, byte(d.Verdict), flags)
	dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.Similarity)))
	dst = binary.BigEndian.AppendUint64(dst, d.Cluster)
	dst = appendString(dst, d.Of)
	dst = binary.BigEndian.AppendUint64(dst, d.OfPos)
	if flags&decPos != 0 {
		dst = binary.BigEndian.AppendUint64(dst, d.Pos)
	}
	return dst
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

func (r *reader) string(what string) string { return string(r.bytes(what)) }

// bytes reads a length-prefixed string as a view of the record's bytes.
func (r *reader) bytes(what string) []byte {
	n := r.uvarint(what)
	if r.err != nil || n > uint64(len(r.b)-r.off) {
		r.fail(what)
		return nil
	}
	r.off += int(n)
	return r.b[r.off-int(n) : r.off]
}

func (r *reader) time(what string) time.Time {
	ns := int64(r.uint64(what))
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

func (r *reader) decision() (stream.Decision, bool) {
	d := stream.Decision{Verdict: stream.Verdict(r.byte1("verdict"))}
	flags := r.byte1("flags")
	if r.err == nil && flags&^(decReplayed|decProvisional|decPos) != 0 {
		r.fail(fmt.Sprintf("decision flags %d", flags))
	}
	d.Replayed = flags&decReplayed != 0
	if r.err == nil && len(r.b)-r.off < 4 {
		r.fail("similarity")
	}
	if r.err == nil {
		d.Similarity = float64(math.Float32frombits(binary.BigEndian.Uint32(r.b[r.off:])))
		r.off += 4
	}
	d.Cluster = r.uint64("cluster")
	d.Of = r.string("of")
	d.OfPos = r.uint64("of position")
	if flags&decPos != 0 {
		d.Pos = r.uint64("position")
	}
	return d, flags&decProvisional != 0
}

// decodeLogRecord decodes a sequence-log record: a batch of probes or of
// finals.
func decodeLogRecord(v []byte) (logRecord, error) {
	var rec logRecord
	r := &reader{b: v}
	if ver := r.byte1("version"); r.err == nil && ver != wireVersion {
		return rec, fmt.Errorf("%w: version %d, this build reads %d", errWire, ver, wireVersion)
	}
	switch kind := r.byte1("kind"); kind {
	case kindProbes, kindUnindexedProbe:
		indexed := kind == kindProbes
		rec.probes = make([]probe, 0, r.count())
		r.entries(func(e *reader) { rec.probes = append(rec.probes, decodeProbe(e, indexed)) })
	case kindFinals:
		r.entries(func(e *reader) { rec.finals = append(rec.finals, decodeChangedFinal(e)) })
	case kindSettled:
		r.entries(func(e *reader) { rec.finals = append(rec.finals, decodeFinal(e)) })
	default:
		r.fail(fmt.Sprintf("kind %d", kind))
	}
	r.end()
	if r.err != nil {
		return logRecord{}, r.err
	}
	return rec, nil
}

// count is the entry count entries will read, or 0 if there is none to read.
func (r *reader) count() int {
	if r.err != nil || len(r.b)-r.off < 4 {
		return 0
	}
	return int(min(binary.BigEndian.Uint32(r.b[r.off:]), uint32(len(r.b)-r.off)))
}

// entries decodes a batch's count and its length-prefixed entries, each
// with its own reader that must consume it whole.
func (r *reader) entries(decode func(*reader)) {
	if r.err == nil && len(r.b)-r.off < 4 {
		r.fail("count")
	}
	if r.err != nil {
		return
	}
	n := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	if n == 0 || uint64(n) > uint64(len(r.b)-r.off) { // an entry takes at least its length byte
		r.fail("count")
		return
	}
	for range n {
		size := r.uvarint("entry length")
		if r.err == nil && size > uint64(len(r.b)-r.off) {
			r.fail("entry length")
		}
		if r.err != nil {
			return
		}
		e := &reader{b: r.b[r.off : r.off+int(size)]}
		decode(e)
		e.end()
		if e.err != nil {
			r.fail(fmt.Sprintf("entry at byte %d: %v", r.off, e.err))
			return
		}
		r.off += int(size)
	}
}

// end fails the reader unless every byte was read.
func (r *reader) end() {
	if r.err == nil && r.off != len(r.b) {
		r.fail("trailing bytes")
	}
}

// index reads a document's index in its front batch.
func (r *reader) index() int {
	i := r.uvarint("index")
	if r.err == nil && i > maxBatchIndex {
		r.fail("index")
	}
	return int(i)
}

// maxBatchIndex bounds the index of a document in its front batch as read.
const maxBatchIndex = 1 << 30

// decodeProbe decodes a probe body; its sketch is the rest of the reader,
// and its keys have room for the exact key (indexKeys).
func decodeProbe(r *reader, indexed bool) probe {
	p := probe{reply: int(r.uvarint("reply partition")), index: -1}
	if indexed {
		p.index = r.index()
	}
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
		d.Bands = make([]uint64, n, n+1) // room for the exact key (indexKeys)
		for i := range d.Bands {
			d.Bands[i] = r.uint64("key")
		}
		if r.off < len(r.b) {
			d.Sketch = r.b[r.off:len(r.b):len(r.b)] // the record's own bytes: read, never written
		}
		r.off = len(r.b)
	}
	return p
}

// decodeFinal decodes a final.
func decodeFinal(r *reader) (f final) {
	f.source = r.string("source")
	f.hash = r.uint64("hash")
	switch flag := r.byte1("changed"); {
	case r.err != nil:
	case flag == 1:
		f.changed = true
		f.dec, _ = r.decision()
	case flag != 0:
		r.fail(fmt.Sprintf("changed flag %d", flag))
	}
	return f
}

// decodeChangedFinal decodes a final of an earlier build's kindFinals record,
// which always carries its decision.
func decodeChangedFinal(r *reader) final {
	f := final{source: r.string("source"), hash: r.uint64("hash"), changed: true}
	f.dec, _ = r.decision()
	return f
}

func decodeAnswer(r *reader) answer {
	a := answer{shard: int(r.uvarint("shard")), source: r.string("source"), hash: r.uint64("hash")}
	a.dec, a.provisional = r.decision()
	return a
}

func decodeNothing(r *reader) nothing {
	n := nothing{shard: int(r.uvarint("shard")), key: r.string("batch key")}
	count := r.uvarint("count")
	if r.err == nil && count > uint64(len(r.b)-r.off) { // an index takes at least a byte
		r.fail("count")
	}
	if r.err != nil {
		return n
	}
	n.indexes = make([]int, 0, count)
	at := 0
	for range count {
		at += r.index()
		if r.err == nil && at > maxBatchIndex {
			r.fail("index")
		}
		n.indexes = append(n.indexes, at)
	}
	return n
}

// decodeAnswers decodes an answer-topic record: a batch of one shard's
// answers, one document's each or (answerNone) many documents'.
func decodeAnswers(v []byte) ([]answer, []nothing, error) {
	var as []answer
	var ns []nothing
	r := &reader{b: v}
	switch ver := r.byte1("version"); {
	case r.err != nil:
	case ver == wireVersion: // an earlier build's: one document's answer each
		r.entries(func(e *reader) { as = append(as, decodeAnswer(e)) })
	case ver == answerVersion:
		r.entries(func(e *reader) {
			switch kind := e.byte1("kind"); {
			case e.err != nil:
			case kind == answerOne:
				as = append(as, decodeAnswer(e))
			case kind == answerNone:
				ns = append(ns, decodeNothing(e))
			default:
				e.fail(fmt.Sprintf("answer kind %d", kind))
			}
		})
	default:
		return nil, nil, fmt.Errorf("%w: version %d, this build reads %d and %d", errWire, ver, wireVersion, answerVersion)
	}
	r.end()
	if r.err != nil {
		return nil, nil, r.err
	}
	return as, ns, nil
}

// KeysByShard adds to counts[s] the index keys that a sequence-log record's
// probes are stored under in shard s, of len(counts) shards (none for finals
// or a record that does not decode): the measure of shard balance.
func KeysByShard(v []byte, counts []int64) {
	rec, err := decodeLogRecord(v)
	if err != nil {
		return
	}
	for i := range rec.probes {
		d := &rec.probes[i].doc
		counts[home(d.ContentHash, len(counts))] += int64(len(d.Bands) + 1)
	}
}
