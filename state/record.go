package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrCorrupt reports a stored record that cannot be decoded.
var ErrCorrupt = errors.New("state: corrupt record")

// Record layout, versions 1 and 2; see the package documentation.
const (
	recordV1        = 1
	recordV2        = 2 // version 1 plus the original's time and Source
	offVerdict      = 1
	offTime         = 2
	offHash         = 10
	offOf           = 18
	offCluster      = 26
	offSimilarity   = 34
	recordHeaderLen = 38
	offOfTime       = 38 // version 2
	recordV2HeadLen = 46
)

// zeroTime encodes time.Time{}, whose UnixNano is undefined.
const zeroTime = math.MinInt64

// v2 reports whether d needs a version-2 record: it names its original's
// place in the global order (a shard of the sharded index).
func (d *Doc) v2() bool { return d.OfSource != "" || !d.OfTime.IsZero() }

// strings returns the record's length-prefixed strings, in order.
func (d *Doc) strings() []string {
	if d.v2() {
		return []string{d.ID, d.URL, d.OfID, d.Source, d.OfSource}
	}
	return []string{d.ID, d.URL, d.OfID, d.Source}
}

func recordLen(d *Doc) int {
	n := recordHeaderLen + len(d.Sketch)
	if d.v2() {
		n = recordV2HeadLen + len(d.Sketch)
	}
	for _, s := range d.strings() {
		n += uvarintLen(uint64(len(s))) + len(s)
	}
	return n
}

// appendRecord appends the encoding of d (Seq and Bands excluded): version 1,
// or version 2 when it names its original's time and Source.
func appendRecord(dst []byte, d *Doc) []byte {
	be := binary.BigEndian
	version := byte(recordV1)
	if d.v2() {
		version = recordV2
	}
	dst = append(dst, version, d.Verdict)
	dst = be.AppendUint64(dst, uint64(encodeTime(d.Time)))
	dst = be.AppendUint64(dst, d.ContentHash)
	dst = be.AppendUint64(dst, d.Of)
	dst = be.AppendUint64(dst, d.Cluster)
	dst = be.AppendUint32(dst, math.Float32bits(d.Similarity))
	if version == recordV2 {
		dst = be.AppendUint64(dst, uint64(encodeTime(d.OfTime)))
	}
	for _, s := range d.strings() {
		dst = append(binary.AppendUvarint(dst, uint64(len(s))), s...)
	}
	return append(dst, d.Sketch...)
}

func encodeTime(t time.Time) int64 {
	if t.IsZero() {
		return zeroTime
	}
	return t.UnixNano()
}

// decodeRecord decodes the record of document seq. The result does not alias v:
// the four strings share one allocation and the sketch is copied.
func decodeRecord(seq uint64, v []byte) (Doc, error) {
	head, nstr := recordHeaderLen, 4
	if len(v) > 0 && v[0] == recordV2 {
		head, nstr = recordV2HeadLen, 5
	}
	if len(v) < head || v[0] != recordV1 && v[0] != recordV2 {
		return Doc{}, fmt.Errorf("%w: seq %d: %d bytes, version %d", ErrCorrupt, seq, len(v), first(v))
	}
	var bounds [5][2]int // [start, end) of id, url, of id, source and of source, after the header
	off := head
	for i := range nstr {
		n, k := binary.Uvarint(v[off:])
		if k <= 0 || n > uint64(len(v)-off-k) {
			return Doc{}, fmt.Errorf("%w: seq %d: bad string length at byte %d", ErrCorrupt, seq, off)
		}
		off += k
		bounds[i] = [2]int{off - head, off - head + int(n)}
		off += int(n)
	}
	strs := string(v[head:off])
	be := binary.BigEndian
	d := Doc{
		Seq:         seq,
		ID:          strs[bounds[0][0]:bounds[0][1]],
		URL:         strs[bounds[1][0]:bounds[1][1]],
		Time:        decodeTime(int64(be.Uint64(v[offTime:]))),
		ContentHash: be.Uint64(v[offHash:]),
		Verdict:     v[offVerdict],
		Of:          be.Uint64(v[offOf:]),
		OfID:        strs[bounds[2][0]:bounds[2][1]],
		Source:      strs[bounds[3][0]:bounds[3][1]],
		Similarity:  math.Float32frombits(be.Uint32(v[offSimilarity:])),
		Cluster:     be.Uint64(v[offCluster:]),
		OfSource:    strs[bounds[4][0]:bounds[4][1]],
	}
	if head == recordV2HeadLen {
		d.OfTime = decodeTime(int64(be.Uint64(v[offOfTime:])))
	}
	if off < len(v) {
		d.Sketch = append([]byte(nil), v[off:]...)
	}
	return d, nil
}

func decodeTime(ns int64) time.Time {
	if ns == zeroTime {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// setRecordCluster rewrites the cluster field of an encoded record in place.
func setRecordCluster(v []byte, cluster uint64) error {
	if len(v) < recordHeaderLen || v[0] != recordV1 && v[0] != recordV2 {
		return fmt.Errorf("%w: %d bytes, version %d", ErrCorrupt, len(v), first(v))
	}
	binary.BigEndian.PutUint64(v[offCluster:], cluster)
	return nil
}

func first(v []byte) int {
	if len(v) == 0 {
		return -1
	}
	return int(v[0])
}
