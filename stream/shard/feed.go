package shard

import (
	"context"
	"slices"
	"sync"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream"
)

// feed reads the sequence log once for all the shards served here, owned and
// standby, and decodes each record once: every shard applies every record,
// and a reader and a decoding for each shard would repeat both for each
// shard held. Shards at one offset share a cursor, a
// reader and a window of the batches it decoded, which keeps the last
// keptWindow bytes of records (so that a shard starting a little behind the
// others joins them) and, up to maxWindow, those a shard still has to
// apply. A shard further behind (rebuilding, or slower) reads on a cursor of
// its own from its offset and moves to the others' window when it reaches
// it; a cursor no shard reads closes. The decoded records are shared by the
// shards: read, never written.
type feed struct {
	reader  func(offset int64) (*kafka.Reader, error)
	batch   stream.BatchConfig
	window  int            // maxWindow, but in tests
	readers func(open int) // told how many cursors are open when that changes; may be nil

	mu      sync.Mutex
	cursors []*cursor     // oldest first
	at      map[int]int64 // each shard's next offset
}

// cursor is a reader of the sequence log and a window of the batches it
// has read, contiguous: [start, end), end the reader's next offset.
type cursor struct {
	reader     *kafka.Reader
	start, end int64 // kafka.FirstOffset both until its first batch
	first      bool  // the window begins at the log's first record
	batches    []*fed
	bytes      int
	fetching   chan struct{} // closed when the fetch in flight ends; nil when none is
}

// fed is a batch of sequence-log records and their decodings.
type fed struct {
	msgs  []kafka.Message
	recs  []logRecord
	errs  []error // a malformed record's error, nil for the rest
	bytes int
}

// next is the offset after the batch.
func (b *fed) next() int64 { return b.msgs[len(b.msgs)-1].Offset + 1 }

const (
	// keptWindow is how many bytes of records a cursor keeps behind
	// every shard reading it.
	keptWindow = 4 << 20
	// maxWindow bounds the bytes of records a cursor keeps: past it the
	// oldest go, and a shard still wanting them reads them on a cursor of
	// its own.
	maxWindow = 16 << 20
)

func newFeed(b stream.BatchConfig, reader func(offset int64) (*kafka.Reader, error)) *feed {
	return &feed{batch: b, reader: reader, window: maxWindow, at: make(map[int]int64)}
}

// next returns the records of the sequence log from offset on that the
// cursor holding offset has (at least one), for shard id, which has applied
// everything before offset; it blocks until there is one or ctx ends.
// kafka.FirstOffset is the log's first record.
func (f *feed) next(ctx context.Context, id int, offset int64) (fed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at[id] = offset
	for {
		if ctx.Err() != nil {
			return fed{}, ctx.Err()
		}
		c := f.holding(offset)
		switch {
		case c == nil:
			r, err := f.reader(offset)
			if err != nil {
				return fed{}, err
			}
			c = &cursor{reader: r, start: offset, end: offset, first: offset == kafka.FirstOffset}
			f.cursors = append(f.cursors, c)
			f.reportReaders()
		case offset < 0 && c.start >= 0: // the log's first record is known now
			offset = c.start
			f.at[id] = offset
			continue
		case offset != c.end:
			b := c.batchAt(offset)
			i := int(offset - b.msgs[0].Offset)
			f.at[id] = b.next()
			f.trim()
			return fed{msgs: b.msgs[i:], recs: b.recs[i:], errs: b.errs[i:]}, nil
		}
		if c.fetching != nil { // another shard is reading: take what it reads
			wait := c.fetching
			f.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
			}
			f.mu.Lock()
			continue
		}
		if err := f.fetch(ctx, c); err != nil {
			f.trim()
			return fed{}, err
		}
	}
}

// holding returns the cursor whose window holds offset, else one that ends
// at it (it reads offset next), the oldest first: a shard behind the others
// so joins their window when it reaches it, and its own cursor closes.
// kafka.FirstOffset is held by a cursor that began at the log's first
// record and still has it.
func (f *feed) holding(offset int64) *cursor {
	for _, c := range f.cursors {
		if offset < 0 && c.first || offset >= 0 && c.start <= offset && offset < c.end {
			return c
		}
	}
	for _, c := range f.cursors {
		if offset >= 0 && offset == c.end {
			return c
		}
	}
	return nil
}

// fetch reads a batch onto c's window, with f.mu held on entry and on
// return but not while it reads.
func (f *feed) fetch(ctx context.Context, c *cursor) error {
	done := make(chan struct{})
	c.fetching = done
	f.mu.Unlock()
	msgs, err := stream.FetchBatch(ctx, c.reader, f.batch, stream.AlwaysIdle)
	var b *fed
	if len(msgs) > 0 {
		b = decodeBatch(msgs)
	}
	f.mu.Lock()
	c.fetching = nil
	close(done)
	if b == nil {
		return err
	}
	if c.start < 0 {
		c.start = msgs[0].Offset
	}
	c.batches = append(c.batches, b)
	c.end, c.bytes = b.next(), c.bytes+b.bytes
	return nil
}

// decodeBatch decodes a batch of records once for every shard: each probe
// with its index keys and its position.
func decodeBatch(msgs []kafka.Message) *fed {
	b := &fed{msgs: msgs, recs: make([]logRecord, len(msgs)), errs: make([]error, len(msgs))}
	for i := range msgs {
		m := &msgs[i]
		b.bytes += len(m.Value)
		b.recs[i], b.errs[i] = decodeLogRecord(m.Value)
		placeProbes(b.recs[i].probes, m.Offset)
	}
	return b
}

// placeProbes gives each probe of the record at offset its index keys and its
// position in the global order.
func placeProbes(probes []probe, offset int64) {
	for j := range probes {
		d := &probes[j].doc
		d.Bands, d.Pos = indexKeys(d), positionOf(offset, j)
	}
}

// batchAt returns the batch of c's window holding offset.
func (c *cursor) batchAt(offset int64) *fed {
	i, _ := slices.BinarySearchFunc(c.batches, offset, func(b *fed, o int64) int {
		switch {
		case b.next() <= o:
			return -1
		case b.msgs[0].Offset > o:
			return 1
		}
		return 0
	})
	return c.batches[i]
}

// trim drops from each cursor's window the oldest batches past keptWindow
// that no shard has still to apply, and any past f.window, and closes the
// cursors no shard reads.
func (f *feed) trim() {
	open := len(f.cursors)
	f.cursors = slices.DeleteFunc(f.cursors, func(c *cursor) bool {
		for len(c.batches) > 0 {
			b := c.batches[0]
			if c.bytes <= f.window && (c.bytes <= keptWindow || f.behind(b.next())) {
				break
			}
			c.batches[0] = nil
			c.batches, c.start, c.bytes, c.first = c.batches[1:], b.next(), c.bytes-b.bytes, false
		}
		if c.fetching != nil || f.reading(c) {
			return false
		}
		go c.reader.Close() // it may wait for a fetch in flight
		return true
	})
	if len(f.cursors) != open {
		f.reportReaders()
	}
}

// reportReaders tells f.readers how many cursors are open.
func (f *feed) reportReaders() {
	if f.readers != nil {
		f.readers(len(f.cursors))
	}
}

// behind says whether some shard has still to apply the records before offset.
func (f *feed) behind(offset int64) bool {
	for _, o := range f.at {
		if o < offset {
			return true
		}
	}
	return false
}

// reading says whether some shard reads on c: its next offset is in c's
// window or where c reads next.
func (f *feed) reading(c *cursor) bool {
	for _, o := range f.at {
		if o < 0 && c.first || o >= 0 && c.start <= o && o <= c.end {
			return true
		}
	}
	return false
}

// leave says shard id reads no more; a cursor no other shard reads closes.
func (f *feed) leave(id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.at, id)
	f.trim()
}

// close closes every cursor's reader.
func (f *feed) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.cursors {
		c.reader.Close()
	}
	f.cursors = nil
	f.reportReaders()
}
