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

// Record layout, version 1; see the package documentation.
const (
	recordV1        = 1
	offVerdict      = 1
	offTime         = 2
	offHash         = 10
	offOf           = 18
	offCluster      = 26
	offSimilarity   = 34
	recordHeaderLen = 38
)

// zeroTime encodes time.Time{}, whose UnixNano is undefined.
const zeroTime = math.MinInt64

func recordLen(d *Doc) int {
	n := recordHeaderLen + len(d.Sketch)
	for _, s := range [...]string{d.ID, d.URL, d.OfID, d.Source} {
		n += uvarintLen(uint64(len(s))) + len(s)
	}
	return n
}

// appendRecord appends the version-1 encoding of d (Seq and Bands excluded).
func appendRecord(dst []byte, d *Doc) []byte {
	t := int64(zeroTime)
	if !d.Time.IsZero() {
		t = d.Time.UnixNano()
	}
	be := binary.BigEndian
	dst = append(dst, recordV1, d.Verdict)
	dst = be.AppendUint64(dst, uint64(t))
	dst = be.AppendUint64(dst, d.ContentHash)
	dst = be.AppendUint64(dst, d.Of)
	dst = be.AppendUint64(dst, d.Cluster)
	dst = be.AppendUint32(dst, math.Float32bits(d.Similarity))
	for _, s := range [...]string{d.ID, d.URL, d.OfID, d.Source} {
		dst = append(binary.AppendUvarint(dst, uint64(len(s))), s...)
	}
	return append(dst, d.Sketch...)
}

// decodeRecord decodes the record of document seq. The result does not alias v:
// the four strings share one allocation and the sketch is copied.
func decodeRecord(seq uint64, v []byte) (Doc, error) {
	if len(v) < recordHeaderLen || v[0] != recordV1 {
		return Doc{}, fmt.Errorf("%w: seq %d: %d bytes, version %d", ErrCorrupt, seq, len(v), first(v))
	}
	var bounds [4][2]int // [start, end) of id, url, of id and source, after the header
	off := recordHeaderLen
	for i := range bounds {
		n, k := binary.Uvarint(v[off:])
		if k <= 0 || n > uint64(len(v)-off-k) {
			return Doc{}, fmt.Errorf("%w: seq %d: bad string length at byte %d", ErrCorrupt, seq, off)
		}
		off += k
		bounds[i] = [2]int{off - recordHeaderLen, off - recordHeaderLen + int(n)}
		off += int(n)
	}
	strs := string(v[recordHeaderLen:off])
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
	if len(v) < recordHeaderLen || v[0] != recordV1 {
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
