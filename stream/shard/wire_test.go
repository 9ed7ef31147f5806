package shard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

// pack packs entries with one packer and returns its records.
func pack[T any](head []byte, xs []T, body func([]byte, *T) []byte) [][]byte {
	pk := newPacker(head...)
	for i := range xs {
		pk.add(func(dst []byte) []byte { return body(dst, &xs[i]) })
	}
	return pk.records()
}

func testProbes() []probe {
	return []probe{
		{reply: 3, doc: state.Doc{ID: "id-ё", URL: "https://x/y", Source: "pages/3/42", Time: time.Unix(5, 6).UTC(),
			ContentHash: 1<<63 + 7, Bands: []uint64{1, 1 << 60}, Sketch: []byte{0, 1, 2, 255}}},
		{reply: 0, doc: state.Doc{ID: "b", Source: "pages/0/1", Bands: []uint64{}}},
	}
}

// Each probe's keys, as decoded, keep room for the exact key without
// reaching into the next probe's.
func TestWireKeysHaveRoomForTheExactKey(t *testing.T) {
	ps := testProbes()
	ps = append(ps, ps[0])
	ps[2].doc.ContentHash, ps[2].doc.ID = 5, "c"
	rec, err := decodeLogRecord(pack([]byte{wireVersion, kindProbes}, ps, appendProbeBody)[0])
	if err != nil || len(rec.probes) != 3 {
		t.Fatalf("probes: %+v, %v", rec, err)
	}
	for i := range rec.probes {
		d := &rec.probes[i].doc
		d.Bands = indexKeys(d)
	}
	for i := range rec.probes {
		if got, want := rec.probes[i].doc.Bands, append(slices.Clone(ps[i].doc.Bands), exactKey(ps[i].doc.ContentHash)); !slices.Equal(got, want) {
			t.Errorf("probe %d's keys with its exact key: %v, want %v", i, got, want)
		}
	}
}

func TestWireRoundTrip(t *testing.T) {
	ps := testProbes()
	recs := pack([]byte{wireVersion, kindProbes}, ps, appendProbeBody)
	if len(recs) != 1 {
		t.Fatalf("%d probe records, want 1", len(recs))
	}
	rec, err := decodeLogRecord(recs[0])
	if err != nil || !reflect.DeepEqual(rec.probes, ps) || rec.finals != nil {
		t.Fatalf("probes: %+v, %v; want %+v", rec, err, ps)
	}
	dec := stream.Decision{Verdict: stream.NearDuplicate, Of: "orig", Similarity: 0.875, Cluster: 99, OfPos: 1<<40 | 3, Replayed: true}
	fs := []final{{source: "pages/3/42", hash: 9, changed: true, dec: dec}, {source: "pages/1/1", hash: 1}}
	rec, err = decodeLogRecord(pack([]byte{wireVersion, kindSettled}, fs, appendFinalBody)[0])
	if err != nil || !reflect.DeepEqual(rec.finals, fs) || rec.probes != nil {
		t.Fatalf("finals: %+v, %v; want %+v", rec, err, fs)
	}
	rec, err = decodeLogRecord(pack([]byte{wireVersion, kindFinals}, fs[:1], appendEarlierFinal)[0])
	if err != nil || !reflect.DeepEqual(rec.finals, fs[:1]) {
		t.Fatalf("an earlier build's finals: %+v, %v; want %+v", rec, err, fs[:1])
	}
	earlier := append(slices.Clone(ps), ps[0])
	earlier[2].doc.ID = "c"
	for i := range earlier {
		earlier[i].index = -1
	}
	rec, err = decodeLogRecord(pack([]byte{wireVersion, kindUnindexedProbe}, earlier, appendEarlierProbe)[0])
	if err != nil || !reflect.DeepEqual(rec.probes, earlier) {
		t.Fatalf("an earlier build's probes: %+v, %v; want %+v", rec.probes, err, earlier)
	}
	as := []answer{{shard: 7, source: "pages/3/42", hash: 9, dec: stream.Decision{Verdict: stream.Unique, Cluster: 5}}, {shard: 7, source: "pages/3/43", dec: dec, provisional: true}}
	ns := []nothing{{shard: 2, key: "k1", indexes: []int{0, 1, 5, 300}}, {shard: 3, key: "k2", indexes: []int{7}}}
	ap := newAnswerPacker()
	ap.one(4, &as[0])
	for _, i := range ns[0].indexes {
		ap.nothingFor(4, ns[0].shard, ns[0].key, i)
	}
	ap.one(4, &as[1])
	ap.nothingFor(4, ns[1].shard, ns[1].key, ns[1].indexes[0])
	msgs := ap.messages("answers")
	if len(msgs) != 1 || msgs[0].Partition != 4 {
		t.Fatalf("answer messages: %+v, want one record on partition 4", msgs)
	}
	got, gotNs, err := decodeAnswers(msgs[0].Value)
	if err != nil || !reflect.DeepEqual(got, as) || !reflect.DeepEqual(gotNs, ns) {
		t.Fatalf("answers: %+v and %+v, %v; want %+v and %+v", got, gotNs, err, as, ns)
	}
	got, gotNs, err = decodeAnswers(pack([]byte{wireVersion}, as, appendEarlierAnswer)[0])
	if err != nil || !reflect.DeepEqual(got, as) || gotNs != nil {
		t.Fatalf("an earlier build's answers: %+v, %v; want %+v", got, err, as)
	}
	counts := make([]int64, 2)
	KeysByShard(recs[0], counts)
	if counts[0]+counts[1] != 2+2 { // two band keys and two exact keys
		t.Errorf("KeysByShard of the probe batch = %v, want 4 keys in all", counts)
	}
}

// appendEarlierFinal encodes a final as builds before kindSettled did: always
// with its decision, no flag.
// appendEarlierProbe encodes a probe as earlier builds did
// (kindUnindexedProbe): without its index.
func appendEarlierProbe(dst []byte, p *probe) []byte {
	body := appendProbeBody(nil, p) // reply, index, the rest
	_, n := binary.Uvarint(body)
	_, m := binary.Uvarint(body[n:])
	return append(append(dst, body[:n]...), body[n+m:]...)
}

// appendEarlierAnswer encodes an answer as earlier builds did (a record
// of wireVersion): without its kind.
func appendEarlierAnswer(dst []byte, a *answer) []byte {
	return append(dst, appendAnswerBody(nil, a)[1:]...)
}

func appendEarlierFinal(dst []byte, f *final) []byte {
	dst = binary.BigEndian.AppendUint64(appendString(dst, f.source), f.hash)
	return appendDecision(dst, &f.dec, false)
}

// TestPositions checks that positions order entries by record offset, then
// by their place in the record, and are never 0.
func TestPositions(t *testing.T) {
	if positionOf(0, 0) == 0 {
		t.Error("the first position is 0")
	}
	if !(positionOf(0, 0) < positionOf(0, 1) && positionOf(0, maxEntries-1) < positionOf(1, 0) && positionOf(1, 0) < positionOf(1<<40, 0)) {
		t.Error("positions out of order")
	}
}

// TestPackerSplits checks that a packer closes a record once it reaches
// maxRecordBytes and that the records hold every entry, in order.
func TestPackerSplits(t *testing.T) {
	p := testProbes()[0]
	p.doc.Sketch = make([]byte, 1000)
	ps := make([]probe, 3*maxRecordBytes/1000)
	for i := range ps {
		ps[i] = p
		ps[i].doc.ContentHash = uint64(i)
	}
	recs := pack([]byte{wireVersion, kindProbes}, ps, appendProbeBody)
	if len(recs) < 3 || len(recs) > 4 {
		t.Fatalf("%d records for %d probes of ~1 KB, want 3 or 4", len(recs), len(ps))
	}
	var all []probe
	for _, v := range recs {
		if len(v) > maxRecordBytes+2000 {
			t.Errorf("record of %d bytes, want about %d at most", len(v), maxRecordBytes)
		}
		rec, err := decodeLogRecord(v)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rec.probes...)
	}
	if !reflect.DeepEqual(all, ps) {
		t.Errorf("the records hold %d probes, not the %d packed in order", len(all), len(ps))
	}
}

// TestWireMalformed checks that every cut of a record, another version, a
// wrong count and trailing bytes are refused with errWire, never decoded as
// something else.
func TestWireMalformed(t *testing.T) {
	f := final{source: "p/0/1", hash: 1, changed: true, dec: stream.Decision{Verdict: stream.Contained, Of: "x"}}
	a := answer{shard: 1, source: "p/0/1", hash: 2, dec: stream.Decision{Verdict: stream.Unique}}
	fs, as := []final{f, f}, []answer{a, a}
	finals := pack([]byte{wireVersion, kindSettled}, fs, appendFinalBody)[0]
	ap := newAnswerPacker()
	ap.one(0, &as[0])
	ap.nothingFor(0, 3, "key", 2)
	ap.nothingFor(0, 3, "key", 200)
	ap.one(0, &as[1])
	answers := ap.messages("answers")[0].Value
	logDecode := func(v []byte) error { _, err := decodeLogRecord(v); return err }
	answerDecode := func(v []byte) error { _, _, err := decodeAnswers(v); return err }
	whole := []struct {
		name   string
		v      []byte
		decode func([]byte) error
	}{
		{"finals", finals, logDecode},
		{"an earlier build's finals", pack([]byte{wireVersion, kindFinals}, fs, appendEarlierFinal)[0], logDecode},
		{"probes", pack([]byte{wireVersion, kindProbes}, testProbes(), appendProbeBody)[0], logDecode},
		{"answers", answers, answerDecode},
		{"an earlier build's answers", pack([]byte{wireVersion}, as, appendEarlierAnswer)[0], answerDecode},
		{"an earlier build's probes", pack([]byte{wireVersion, kindUnindexedProbe}, testProbes(), appendEarlierProbe)[0], logDecode},
	}
	for _, c := range whole {
		if err := c.decode(c.v); err != nil {
			t.Errorf("%s whole: %v", c.name, err)
		}
		for n := range len(c.v) {
			if err := c.decode(c.v[:n]); !errors.Is(err, errWire) {
				t.Errorf("%s cut at %d of %d: %v, want errWire", c.name, n, len(c.v), err)
			}
		}
		if err := c.decode(append(bytes.Clone(c.v), 0)); !errors.Is(err, errWire) {
			t.Errorf("%s with a trailing byte: %v, want errWire", c.name, err)
		}
	}
	bad := []struct {
		name   string
		v      []byte
		decode func([]byte) error
	}{
		{"unknown kind", []byte{wireVersion, 9}, logDecode},
		{"another log version", append([]byte{wireVersion + 1}, finals[1:]...), logDecode},
		{"another answer version", append([]byte{answerVersion + 1}, answers[1:]...), answerDecode},
		{"unknown answer kind", append(binary.BigEndian.AppendUint32([]byte{answerVersion}, 1), 2, 2, 0)[:], answerDecode},
		{"an earlier build's probe batch", append([]byte{1}, finals[1:]...), logDecode},
		{"count 0", []byte{wireVersion, kindSettled, 0, 0, 0, 0}, logDecode},
		{"count 3 of 2", append(binary.BigEndian.AppendUint32([]byte{wireVersion, kindSettled}, 3), finals[6:]...), logDecode},
		{"count 1 of 2", append(binary.BigEndian.AppendUint32([]byte{wireVersion, kindSettled}, 1), finals[6:]...), logDecode},
		{"changed flag 2", pack([]byte{wireVersion, kindSettled}, fs[:1], func(dst []byte, f *final) []byte {
			return append(binary.BigEndian.AppendUint64(appendString(dst, f.source), f.hash), 2)
		})[0], logDecode},
	}
	for _, c := range bad {
		if err := c.decode(c.v); !errors.Is(err, errWire) {
			t.Errorf("%s: %v, want errWire", c.name, err)
		}
	}
}

func FuzzDecodeLogRecord(f *testing.F) {
	f.Add(pack([]byte{wireVersion, kindProbes}, testProbes(), appendProbeBody)[0])
	f.Add(pack([]byte{wireVersion, kindSettled}, []final{{source: "a"}, {source: "b", changed: true}}, appendFinalBody)[0])
	f.Add(pack([]byte{wireVersion, kindFinals}, []final{{source: "a"}}, appendEarlierFinal)[0])
	f.Add(pack([]byte{wireVersion, kindUnindexedProbe}, testProbes(), appendEarlierProbe)[0])
	// A record that decodes re-encodes (as a batch) to bytes that decode to
	// the same encoding again (NaN similarities and non-canonical bytes are
	// allowed in, so the property is on the encoding, not on DeepEqual).
	f.Fuzz(func(t *testing.T, v []byte) {
		rec, err := decodeLogRecord(v)
		if err != nil {
			return
		}
		if len(rec.probes)+len(rec.finals) == 0 || len(rec.probes) > 0 && len(rec.finals) > 0 {
			t.Fatalf("a record decoded to %d probes and %d finals", len(rec.probes), len(rec.finals))
		}
		encode := func(rec logRecord) []byte {
			var recs [][]byte
			if len(rec.probes) > 0 && rec.probes[0].index < 0 {
				recs = pack([]byte{wireVersion, kindUnindexedProbe}, rec.probes, appendEarlierProbe)
			} else if len(rec.probes) > 0 {
				recs = pack([]byte{wireVersion, kindProbes}, rec.probes, appendProbeBody)
			} else {
				recs = pack([]byte{wireVersion, kindSettled}, rec.finals, appendFinalBody)
			}
			return bytes.Join(recs, nil)
		}
		once := encode(rec)
		if len(once) > maxRecordBytes+len(v) { // packed into more than one record
			return
		}
		rec2, err := decodeLogRecord(once)
		if err != nil || !bytes.Equal(encode(rec2), once) {
			t.Fatalf("re-encoding is not stable: %v", err)
		}
	})
}
