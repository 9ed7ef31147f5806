package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrCorrupt reports a stored record that cannot be decoded.
var ErrCorrupt = errors.New("state: corrupt record")

// Record layouts; see the package documentation. Versions 1 and 2 are
// read only: every record is written in version 3.
const (
	recordV1        = 1
	recordV2        = 2 // version 1 plus the original's time and Source
	recordV3        = 3 // of and cluster as uvarints, the original's place behind a flag
	offVerdict      = 1
	offTime         = 2
	offHash         = 10
	offOf           = 18 // versions 1 and 2
	offCluster      = 26 // versions 1 and 2
	offSimilarity   = 34 // versions 1 and 2
	recordV1HeadLen = 38 // version 1
	offOfTime       = 38 // version 2
	recordV2HeadLen = 46
	offSimilarityV3 = 18
	offFlagsV3      = 22
	recordV3HeadLen = 23 // then the original's time if flagOrigin, the positions if flagPos, of, cluster
	flagOrigin      = 1  // version 3: the record names its original's time and Source
	flagPos         = 2  // version 3: the record holds Pos and OfPos (a shard of the sharded index)
	flagProvisional = 4  // version 3: Doc.Provisional
)

// zeroTime encodes time.Time{}, whose UnixNano is undefined.
const zeroTime = math.MinInt64

// hasOrigin reports whether d names its original's place in the global order (a
// shard of the sharded index): its record then holds OfTime and OfSource.
func (d *Doc) hasOrigin() bool { return d.OfSource != "" || !d.OfTime.IsZero() }

// hasPos reports whether d has a place in a sharded filter's sequence log:
// its record then holds Pos and OfPos.
func (d *Doc) hasPos() bool { return d.Pos != 0 || d.OfPos != 0 }

// strings returns the record's length-prefixed strings, in order.
func (d *Doc) strings() []string {
	if d.hasOrigin() {
		return []string{d.ID, d.URL, d.OfID, d.Source, d.OfSource}
	}
	return []string{d.ID, d.URL, d.OfID, d.Source}
}

// recordLen is the length of d's version-3 record.
func recordLen(d *Doc) int {
	n := recordV3HeadLen + uvarintLen(d.Of) + uvarintLen(d.Cluster) + len(d.Sketch)
	if d.hasOrigin() {
		n += 8
	}
	if d.hasPos() {
		n += 16
	}
	for _, s := range d.strings() {
		n += uvarintLen(uint64(len(s))) + len(s)
	}
	return n
}

// appendRecord appends the version-3 encoding of d (Seq and Bands excluded).
func appendRecord(dst []byte, d *Doc) []byte {
	be := binary.BigEndian
	var flags byte
	if d.hasOrigin() {
		flags |= flagOrigin
	}
	if d.hasPos() {
		flags |= flagPos
	}
	if d.Provisional {
		flags |= flagProvisional
	}
	dst = append(dst, recordV3, d.Verdict)
	dst = be.AppendUint64(dst, uint64(encodeTime(d.Time)))
	dst = be.AppendUint64(dst, d.ContentHash)
	dst = be.AppendUint32(dst, math.Float32bits(d.Similarity))
	dst = append(dst, flags)
	if flags&flagOrigin != 0 {
		dst = be.AppendUint64(dst, uint64(encodeTime(d.OfTime)))
	}
	if flags&flagPos != 0 {
		dst = be.AppendUint64(be.AppendUint64(dst, d.Pos), d.OfPos)
	}
	dst = binary.AppendUvarint(dst, d.Of)
	dst = binary.AppendUvarint(dst, d.Cluster)
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

// decodeRecord decodes the record of document seq, of any version. The result
// does not alias v: the strings share one allocation and the sketch is copied.
func decodeRecord(seq uint64, v []byte) (Doc, error) {
	bad := func(what string, at int) (Doc, error) {
		return Doc{}, fmt.Errorf("%w: seq %d: %s at byte %d", ErrCorrupt, seq, what, at)
	}
	be := binary.BigEndian
	d := Doc{Seq: seq}
	var off, nstr int
	switch first(v) {
	case recordV1, recordV2:
		off, nstr = recordV1HeadLen, 4
		if v[0] == recordV2 {
			off, nstr = recordV2HeadLen, 5
		}
		if len(v) < off {
			return bad("short header", len(v))
		}
		d.Of, d.Cluster = be.Uint64(v[offOf:]), be.Uint64(v[offCluster:])
		d.Similarity = math.Float32frombits(be.Uint32(v[offSimilarity:]))
		if v[0] == recordV2 {
			d.OfTime = decodeTime(int64(be.Uint64(v[offOfTime:])))
		}
	case recordV3:
		off, nstr = recordV3HeadLen, 4
		if len(v) < off {
			return bad("short header", len(v))
		}
		d.Similarity = math.Float32frombits(be.Uint32(v[offSimilarityV3:]))
		if v[offFlagsV3]&^(flagOrigin|flagPos|flagProvisional) != 0 {
			return bad("unknown flags", offFlagsV3)
		}
		d.Provisional = v[offFlagsV3]&flagProvisional != 0
		if v[offFlagsV3]&flagOrigin != 0 {
			if len(v) < off+8 {
				return bad("short header", len(v))
			}
			d.OfTime = decodeTime(int64(be.Uint64(v[off:])))
			off, nstr = off+8, 5
		}
		if v[offFlagsV3]&flagPos != 0 {
			if len(v) < off+16 {
				return bad("short header", len(v))
			}
			d.Pos, d.OfPos = be.Uint64(v[off:]), be.Uint64(v[off+8:])
			off += 16
		}
		for _, x := range []*uint64{&d.Of, &d.Cluster} {
			n, k := binary.Uvarint(v[off:])
			if k <= 0 {
				return bad("bad uvarint", off)
			}
			*x, off = n, off+k
		}
	default:
		return Doc{}, fmt.Errorf("%w: seq %d: %d bytes, version %d", ErrCorrupt, seq, len(v), first(v))
	}
	d.Verdict = v[offVerdict]
	d.Time = decodeTime(int64(be.Uint64(v[offTime:])))
	d.ContentHash = be.Uint64(v[offHash:])
	var bounds [5][2]int // [start, end) of id, url, of id, source and of source, after head
	head := off
	for i := range nstr {
		n, k := binary.Uvarint(v[off:])
		if k <= 0 || n > uint64(len(v)-off-k) {
			return bad("bad string length", off)
		}
		off += k
		bounds[i] = [2]int{off - head, off - head + int(n)}
		off += int(n)
	}
	strs := string(v[head:off])
	d.ID, d.URL, d.OfID = strs[bounds[0][0]:bounds[0][1]], strs[bounds[1][0]:bounds[1][1]], strs[bounds[2][0]:bounds[2][1]]
	d.Source, d.OfSource = strs[bounds[3][0]:bounds[3][1]], strs[bounds[4][0]:bounds[4][1]]
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

// withCluster returns a new record: v with its cluster set, copied and
// rewritten for versions 1 and 2, whose cluster is fixed-width, and encoded
// again (in version 3) otherwise. v itself is not changed, so it may be a
// value Badger lends.
func withCluster(seq uint64, v []byte, cluster uint64) ([]byte, error) {
	switch first(v) {
	case recordV1, recordV2:
		if len(v) < recordV1HeadLen {
			return nil, fmt.Errorf("%w: seq %d: %d bytes, version %d", ErrCorrupt, seq, len(v), first(v))
		}
		v = bytes.Clone(v)
		binary.BigEndian.PutUint64(v[offCluster:], cluster)
		return v, nil
	}
	d, err := decodeRecord(seq, v)
	if err != nil {
		return nil, err
	}
	d.Cluster = cluster
	return appendRecord(make([]byte, 0, recordLen(&d)), &d), nil
}

func first(v []byte) int {
	if len(v) == 0 {
		return -1
	}
	return int(v[0])
}
