package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"
)

func TestRecordRoundTrip(t *testing.T) {
	f := func(d Doc) {
		t.Helper()
		v := appendRecord([]byte("junk"), &d)[4:]
		if len(v) != recordLen(&d) {
			t.Errorf("recordLen = %d, encoded %d bytes", recordLen(&d), len(v))
		}
		got, err := decodeRecord(d.Seq, v)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		sameDoc(t, got, d)
	}
	f(Doc{Seq: 1})
	f(Doc{Seq: 2, ID: "Ёж\x00", URL: "u", Source: "t/1/2", OfID: "日本", Time: time.Unix(0, 1).UTC(),
		ContentHash: math.MaxUint64, Verdict: 4, Of: 1, Similarity: float32(math.Inf(1)), Cluster: 3, Sketch: []byte{0}})
	f(Doc{Seq: 3, Time: time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC), Similarity: -0.5, Sketch: make([]byte, 1000)})
	f(Doc{Seq: 4, ID: string(make([]byte, 300))}) // two-byte length prefix
	// version 2: a shard's record names its original's place in the global order
	f(Doc{Seq: 5, ID: "b", Source: "p/0/9", OfID: "a", OfSource: "p/1/2", OfTime: time.Unix(7, 8).UTC(), Sketch: []byte{3}})
	f(Doc{Seq: 6, OfSource: "p/1/2"})
	// a shard's record holds its place in the sequence log and its original's
	f(Doc{Seq: 7, ID: "c", Source: "p/0/10", Pos: 1<<40 | 3, Sketch: []byte{4}})
	f(Doc{Seq: 8, ID: "d", OfID: "c", Pos: 1<<40 | 9, OfPos: 1<<40 | 3, OfSource: "p/0/10", OfTime: time.Unix(1, 0).UTC()})
	// and whether its cluster is still provisional there
	f(Doc{Seq: 9, ID: "e", OfID: "c", Pos: 1<<40 | 11, OfPos: 1<<40 | 3, Cluster: 5, Provisional: true, Sketch: []byte{5}})
}

func TestDecodeRecordRejects(t *testing.T) {
	good := appendRecord(nil, &Doc{ID: "abc", URL: "https://x", Sketch: []byte{1, 2}})
	f := func(name string, v []byte) {
		t.Helper()
		if _, err := decodeRecord(1, v); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	f("empty", nil)
	f("short header", good[:recordV3HeadLen-1])
	f("no of", good[:recordV3HeadLen])
	f("no strings", good[:recordV3HeadLen+2])
	f("truncated id", good[:recordV3HeadLen+4])
	bad := bytes.Clone(good)
	bad[0] = 9
	f("version 9", bad)
	bad = bytes.Clone(good)
	bad[offFlagsV3] = flagOrigin // a 5th string and the original's time that are not there
	f("flag without origin", bad)
	bad = bytes.Clone(good)
	bad[offFlagsV3] = 2
	f("unknown flag", bad)
	bad = bytes.Clone(good)
	bad[recordV3HeadLen+2] = 200 // id longer than the record
	f("long id", bad)
	old := appendRecordV1V2(nil, &Doc{ID: "abc", Sketch: []byte{1}})
	f("short version 1", old[:recordV1HeadLen-1])
	f("version 1 truncated id", old[:recordV1HeadLen+2])
}

// appendRecordV1V2 is the encoding of format 1 states (record versions
// 1 and 2, fixed-width of and cluster), kept to test that their records are
// still read.
func appendRecordV1V2(dst []byte, d *Doc) []byte {
	be := binary.BigEndian
	version := byte(recordV1)
	if d.hasOrigin() {
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

func TestRecordVersions1And2(t *testing.T) {
	// A version-1 record written by an earlier build, byte by byte.
	v1 := []byte{1, 2, // version, verdict
		0, 0, 0, 0, 0, 0, 0, 7, // time
		0, 0, 0, 0, 0, 0, 0, 9, // content hash
		0, 0, 0, 0, 0, 0, 0, 3, // of
		0, 0, 0, 0, 0, 0, 0, 4, // cluster
		0x3f, 0x40, 0, 0, // similarity 0.75
		1, 'x', 0, 1, 'o', 5, 't', '/', '0', '/', '1', // id, url, of id, source
		0xaa, 0xbb} // sketch
	want := Doc{Seq: 8, ID: "x", OfID: "o", Source: "t/0/1", Time: time.Unix(0, 7).UTC(), ContentHash: 9,
		Verdict: 2, Of: 3, Cluster: 4, Similarity: 0.75, Sketch: []byte{0xaa, 0xbb}}
	if !bytes.Equal(appendRecordV1V2(nil, &want), v1) {
		t.Fatalf("the version-1 encoder of the test differs from the stored bytes")
	}
	for _, d := range []Doc{want,
		{Seq: 5, ID: "b", Source: "p/0/9", OfID: "a", OfSource: "p/1/2", OfTime: time.Unix(7, 8).UTC(), Cluster: 1 << 60, Sketch: []byte{3}}} {
		v := appendRecordV1V2(nil, &d)
		got, err := decodeRecord(d.Seq, v)
		if err != nil {
			t.Fatalf("decode version %d: %v", v[0], err)
		}
		sameDoc(t, got, d)
		// withCluster rewrites an old record in place, in its own version.
		v, err = withCluster(d.Seq, v, 77)
		if err != nil || v[0] != appendRecordV1V2(nil, &d)[0] {
			t.Fatalf("withCluster on version %d: %v", v[0], err)
		}
		d.Cluster = 77
		got, err = decodeRecord(d.Seq, v)
		if err != nil {
			t.Fatal(err)
		}
		sameDoc(t, got, d)
	}
	// Version 3 is shorter: of and cluster as uvarints.
	if n1, n3 := len(appendRecordV1V2(nil, &want)), recordLen(&want); n3 != n1-13 {
		t.Errorf("version 3 takes %d bytes, version 1 %d", n3, n1)
	}
}

func TestWithCluster(t *testing.T) {
	for _, c := range []uint64{0, 77, 1 << 40} {
		v := appendRecord(nil, &Doc{ID: "x", Cluster: 5, Sketch: []byte{9}})
		v, err := withCluster(1, v, c)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeRecord(1, v)
		if err != nil || d.Cluster != c || d.ID != "x" || !bytes.Equal(d.Sketch, []byte{9}) {
			t.Fatalf("after withCluster(%d): %+v, %v", c, d, err)
		}
	}
	for _, v := range [][]byte{{1}, {3, 0}} {
		if _, err := withCluster(1, v, 1); !errors.Is(err, ErrCorrupt) {
			t.Errorf("withCluster on %x = %v, want ErrCorrupt", v, err)
		}
	}
}

// FuzzDecodeRecord checks that any stored bytes decode without panicking and that
// whatever decodes re-encodes to a record that decodes the same.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendRecord(nil, &Doc{ID: "a", URL: "b", OfID: "c", Source: "d", Sketch: []byte{1}}))
	f.Add(appendRecord(nil, &Doc{}))
	f.Add(appendRecord(nil, &Doc{ID: "a", OfSource: "s", OfTime: time.Unix(1, 2), Of: 300, Cluster: 1 << 50}))
	f.Add(appendRecordV1V2(nil, &Doc{ID: "a", URL: "b", OfID: "c", Source: "d", Sketch: []byte{1}}))
	f.Add(appendRecordV1V2(nil, &Doc{ID: "a", OfSource: "s", Sketch: []byte{1}}))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, v []byte) {
		d, err := decodeRecord(7, v)
		if err != nil {
			return
		}
		again, err := decodeRecord(7, appendRecord(nil, &d))
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		sameDoc(t, again, d)
	})
}
