package offline

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/dedupstream/dedupstream/state"
)

// docTable collects what a pass keeps of every document — sequence number,
// id and URL — compactly: the strings go into one arena instead of pinning
// each decoded record, about 8 + 8 + len(id) + len(url) bytes a document
// while reading and 40 + len(id) + len(url) in the Result.
type docTable struct {
	seqs  []uint64
	arena []byte
	ends  []uint32 // document i's id is arena[ends[2i-1]:ends[2i]], its URL arena[ends[2i]:ends[2i+1]]
}

// add appends a document; every 10,000 it looks at ctx and reports progress.
func (t *docTable) add(ctx context.Context, d state.Doc, progress func(int)) error {
	if n := len(t.seqs); n%10_000 == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if progress != nil && n > 0 {
			progress(n)
		}
	}
	if len(t.arena)+len(d.ID)+len(d.URL) > math.MaxUint32 {
		return errors.New("more than 4 GiB of document ids and URLs")
	}
	t.seqs = append(t.seqs, d.Seq)
	t.arena = append(t.arena, d.ID...)
	t.ends = append(t.ends, uint32(len(t.arena)))
	t.arena = append(t.arena, d.URL...)
	t.ends = append(t.ends, uint32(len(t.arena)))
	return nil
}

// node returns the index of the document with this seq, if it was added.
// Documents are added in ascending seq order.
func (t *docTable) node(seq uint64) (int32, bool) {
	n, ok := slices.BinarySearch(t.seqs, seq)
	return int32(n), ok
}

// result moves the table into a Result: the strings become substrings of one.
func (t *docTable) result() *Result {
	all := string(t.arena)
	res := &Result{Seqs: t.seqs, IDs: make([]string, len(t.seqs)), URLs: make([]string, len(t.seqs))}
	beg := uint32(0)
	for i := range t.seqs {
		res.IDs[i] = all[beg:t.ends[2*i]]
		res.URLs[i] = all[t.ends[2*i]:t.ends[2*i+1]]
		beg = t.ends[2*i+1]
	}
	*t = docTable{}
	return res
}
