package state

import (
	"bytes"
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
	f("short header", good[:recordHeaderLen-1])
	f("no strings", good[:recordHeaderLen])
	f("truncated id", good[:recordHeaderLen+2])
	bad := bytes.Clone(good)
	bad[0] = 2
	f("version 2", bad)
	bad = bytes.Clone(good)
	bad[recordHeaderLen] = 200 // id longer than the record
	f("long id", bad)
}

func TestSetRecordCluster(t *testing.T) {
	v := appendRecord(nil, &Doc{ID: "x", Cluster: 5, Sketch: []byte{9}})
	if err := setRecordCluster(v, 77); err != nil {
		t.Fatal(err)
	}
	d, err := decodeRecord(1, v)
	if err != nil || d.Cluster != 77 || d.ID != "x" || !bytes.Equal(d.Sketch, []byte{9}) {
		t.Fatalf("after setRecordCluster: %+v, %v", d, err)
	}
	if err := setRecordCluster([]byte{1}, 1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("setRecordCluster on a short record = %v", err)
	}
}

// FuzzDecodeRecord checks that any stored bytes decode without panicking and that
// whatever decodes re-encodes to a record that decodes the same.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendRecord(nil, &Doc{ID: "a", URL: "b", OfID: "c", Source: "d", Sketch: []byte{1}}))
	f.Add(appendRecord(nil, &Doc{}))
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
