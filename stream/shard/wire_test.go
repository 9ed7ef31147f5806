package shard

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream"
)

func TestWireRoundTrip(t *testing.T) {
	p := probe{reply: 3, doc: state.Doc{ID: "id-ё", URL: "https://x/y", Source: "pages/3/42", Time: time.Unix(5, 6).UTC(),
		ContentHash: 1<<63 + 7, Bands: []uint64{1, 1 << 60}, Sketch: []byte{0, 1, 2, 255}}}
	kind, got, _, err := decodeLogRecord(appendProbe(nil, &p))
	if err != nil || kind != kindProbe || !reflect.DeepEqual(got, p) {
		t.Fatalf("probe: kind %d, %+v, %v; want %+v", kind, got, err, p)
	}
	dec := stream.Decision{Verdict: stream.NearDuplicate, Of: "orig", Similarity: 0.875, Cluster: 99,
		OfTime: time.Unix(1, 2).UTC(), OfSource: "pages/0/1", Replayed: true}
	f := final{source: "pages/3/42", hash: 9, dec: dec}
	kind, _, gotF, err := decodeLogRecord(appendFinal(nil, &f))
	if err != nil || kind != kindFinal || !reflect.DeepEqual(gotF, f) {
		t.Fatalf("final: kind %d, %+v, %v; want %+v", kind, gotF, err, f)
	}
	a := answer{shard: 7, source: "pages/3/42", hash: 9, dec: stream.Decision{Verdict: stream.Unique, Cluster: 5}}
	gotA, err := decodeAnswer(appendAnswer(nil, &a))
	if err != nil || !reflect.DeepEqual(gotA, a) {
		t.Fatalf("answer: %+v, %v; want %+v", gotA, err, a)
	}
}

// TestWireMalformed checks that every cut of a record, another version and
// trailing bytes are refused with errWire, never decoded as something else.
func TestWireMalformed(t *testing.T) {
	f := final{source: "p/0/1", hash: 1, dec: stream.Decision{Verdict: stream.Contained, Of: "x"}}
	a := answer{shard: 1, source: "p/0/1", hash: 2, dec: stream.Decision{Verdict: stream.Unique}}
	fv, av := appendFinal(nil, &f), appendAnswer(nil, &a)
	for n := range len(fv) {
		if _, _, _, err := decodeLogRecord(fv[:n]); !errors.Is(err, errWire) {
			t.Errorf("final cut at %d of %d: %v, want errWire", n, len(fv), err)
		}
	}
	for n := range len(av) {
		if _, err := decodeAnswer(av[:n]); !errors.Is(err, errWire) {
			t.Errorf("answer cut at %d of %d: %v, want errWire", n, len(av), err)
		}
	}
	other := append([]byte{wireVersion + 1}, appendAnswer(nil, &a)[1:]...)
	if _, err := decodeAnswer(other); !errors.Is(err, errWire) {
		t.Errorf("another version: %v, want errWire", err)
	}
	if _, err := decodeAnswer(append(appendAnswer(nil, &a), 0)); !errors.Is(err, errWire) {
		t.Errorf("trailing byte: %v, want errWire", err)
	}
	if _, _, _, err := decodeLogRecord([]byte{wireVersion, 9}); !errors.Is(err, errWire) {
		t.Errorf("unknown kind: %v, want errWire", err)
	}
}

func FuzzDecodeLogRecord(f *testing.F) {
	p := probe{reply: 1, doc: state.Doc{Source: "p/1/2", Bands: []uint64{3}, Sketch: []byte{4}}}
	f.Add(appendProbe(nil, &p))
	f.Add(appendFinal(nil, &final{source: "p/1/2", dec: stream.Decision{Of: "x"}}))
	// A record that decodes re-encodes to bytes that decode to the same
	// encoding again (NaN similarities and non-canonical bytes are allowed
	// in, so the property is on the encoding, not on DeepEqual).
	f.Fuzz(func(t *testing.T, v []byte) {
		kind, p, fin, err := decodeLogRecord(v)
		if err != nil {
			return
		}
		encode := func(kind byte, p probe, fin final) []byte {
			if kind == kindProbe {
				return appendProbe(nil, &p)
			}
			return appendFinal(nil, &fin)
		}
		once := encode(kind, p, fin)
		k2, p2, f2, err := decodeLogRecord(once)
		if err != nil || k2 != kind || !bytes.Equal(encode(k2, p2, f2), once) {
			t.Fatalf("re-encoding is not stable: %v", err)
		}
	})
}
