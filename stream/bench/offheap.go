package bench

import "errors"

// offHeap is memory outside the Go heap where it can be (an anonymous
// mapping on Unix, offheap_unix.go): the latency mode encodes its documents
// there before the run, so that the filter, when it runs in this process,
// neither pays for their encoding during the run nor sees them under its
// soft memory limit, which counts the Go heap only. Elsewhere it is plain
// heap memory.
type offHeap struct {
	chunk  int // bytes a mapping holds (more for a larger value); 0 → offHeapChunk
	chunks [][]byte
	cur    []byte // the last chunk's used part; its capacity is the chunk's
}

// offHeapChunk is the size of the mappings an offHeap allocates by default.
const offHeapChunk = 64 << 20

// copy returns a copy of b in a's memory, valid until a.free.
func (a *offHeap) copy(b []byte) ([]byte, error) {
	if len(b) > cap(a.cur)-len(a.cur) {
		if a.chunk == 0 {
			a.chunk = offHeapChunk
		}
		c, err := mapChunk(max(a.chunk, len(b)))
		if err != nil {
			return nil, err
		}
		a.chunks = append(a.chunks, c)
		a.cur = c[:0]
	}
	n := len(a.cur)
	a.cur = append(a.cur, b...) // within capacity: in place
	return a.cur[n:len(a.cur):len(a.cur)], nil
}

// free releases a's memory; nothing copied into it may be used after.
func (a *offHeap) free() error {
	var errs []error
	for _, c := range a.chunks {
		errs = append(errs, unmapChunk(c))
	}
	a.chunks, a.cur = nil, nil
	return errors.Join(errs...)
}
