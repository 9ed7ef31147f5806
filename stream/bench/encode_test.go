package bench

import (
	"bytes"
	"strconv"
	"testing"
	"time"
)

// TestEncodedLatencyDocs: the documents a latency run encodes before it
// starts are the records it would have built on the fly — Message of the
// Source's documents from First on, the warm-up keyed "warm<i>", the rest
// "d<i>" — stamped with the time given; and copies into off-heap memory that
// do not fit in what is left of a chunk go to a new one, none overwriting
// another.
func TestEncodedLatencyDocs(t *testing.T) {
	src := &Source{copyRate: 0.2}
	for i := range 50 {
		src.bodies = append(src.bodies, "page "+strconv.Itoa(i)+" of the encoding test with a few more words to shuffle")
	}
	ld := LatencyDocs{Src: src, First: 120, Warm: 3, N: 200}
	e, err := ld.Encode()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Free(); err != nil {
			t.Error(err)
		}
	}()
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	msgs := e.messages(0, ld.Warm+ld.N, at)
	for k, m := range msgs {
		i := ld.First + k
		id := "d" + strconv.Itoa(i)
		if k < ld.Warm {
			id = "warm" + strconv.Itoa(i)
		}
		want := Message(id, src.Doc(i))
		if !bytes.Equal(m.Key, want.Key) || !bytes.Equal(m.Value, want.Value) || !m.Time.Equal(at) {
			t.Fatalf("record %d: key %q value %q at %s; want key %q value %q at %s", k, m.Key, m.Value, m.Time, want.Key, want.Value, at)
		}
	}
	if tail := e.messages(ld.Warm+ld.N-2, 2, at); !bytes.Equal(tail[1].Value, msgs[len(msgs)-1].Value) {
		t.Fatalf("messages(from, n) of the last two records: %q, want %q", tail[1].Value, msgs[len(msgs)-1].Value)
	}

	// Values larger than what is left of a chunk go to a new one.
	const offHeapChunk = 1 << 16
	a := offHeap{chunk: offHeapChunk}
	defer a.free()
	big := bytes.Repeat([]byte("x"), offHeapChunk-10)
	first, err := a.copy(big)
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.copy([]byte("twenty bytes of text"))
	if err != nil {
		t.Fatal(err)
	}
	huge, err := a.copy(bytes.Repeat([]byte("y"), offHeapChunk+1))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.chunks) != 3 || !bytes.Equal(first, big) || string(second) != "twenty bytes of text" || len(huge) != offHeapChunk+1 || huge[offHeapChunk] != 'y' {
		t.Fatalf("%d chunks; want three, each copy intact", len(a.chunks))
	}
}
