package fim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// Dataset is a transaction database: a list of transactions, each a set of
// non-negative int32 items. It is immutable once built.
type Dataset struct {
	items []int32 // all transactions back to back, each sorted ascending without repeats
	off   []int   // transaction i is items[off[i]:off[i+1]]
	w     []int32 // transaction i stands for w[i] identical ones; nil: every weight is 1
	total int64   // the sum of the weights
	max   int32   // largest item, -1 when there is none
}

// NewDataset builds a Dataset from transactions, copying them. Items within a
// transaction may come in any order and repeat; the Dataset keeps each set sorted.
// A negative item is an error.
func NewDataset(tx [][]int32) (*Dataset, error) {
	d := newBuilder()
	for n, t := range tx {
		for _, it := range t {
			if it < 0 {
				return nil, fmt.Errorf("transaction %d: negative item %d", n, it)
			}
		}
		d.items = append(d.items, t...)
		d.endTx()
	}
	return d, nil
}

// NewWeightedDataset builds a Dataset in which transaction i counts weights[i]
// times, as if it were repeated that often: Mine gives the same itemsets and
// supports as on the repeated database, without its size. This is how a context
// whose transactions repeat (many fingerprints shared by the same documents) is
// handed over compactly. Weights must be at least 1; otherwise as NewDataset.
func NewWeightedDataset(tx [][]int32, weights []int32) (*Dataset, error) {
	if len(weights) != len(tx) {
		return nil, fmt.Errorf("%d transactions, %d weights", len(tx), len(weights))
	}
	d, err := NewDataset(tx)
	if err != nil {
		return nil, err
	}
	d.total = 0
	for n, w := range weights {
		if w < 1 {
			return nil, fmt.Errorf("transaction %d: weight %d, want at least 1", n, w)
		}
		d.total += int64(w)
	}
	d.w = slices.Clone(weights)
	return d, nil
}

// Weight returns how many transactions transaction i stands for: 1 unless the
// Dataset was built by NewWeightedDataset.
func (d *Dataset) Weight(i int) int32 {
	if d.w == nil {
		return 1
	}
	return d.w[i]
}

// TotalWeight returns the sum of the weights of all transactions: the number of
// transactions of the database the Dataset stands for.
func (d *Dataset) TotalWeight() int64 { return d.total }

func newBuilder() *Dataset { return &Dataset{off: []int{0}, max: -1} }

// endTx closes the transaction made of the items appended since the last one:
// it sorts them, drops repeats and tracks the largest item.
func (d *Dataset) endTx() {
	beg := d.off[len(d.off)-1]
	t := d.items[beg:]
	slices.Sort(t)
	t = slices.Compact(t)
	d.items = d.items[:beg+len(t)]
	if len(t) > 0 && t[len(t)-1] > d.max {
		d.max = t[len(t)-1]
	}
	d.off = append(d.off, len(d.items))
	d.total++
}

// Len returns the number of transactions, empty ones included.
func (d *Dataset) Len() int { return len(d.off) - 1 }

// Transaction returns transaction i, sorted ascending without repeats. The slice
// aliases the Dataset and must not be modified.
func (d *Dataset) Transaction(i int) []int32 {
	return d.items[d.off[i]:d.off[i+1]:d.off[i+1]]
}

// MaxItem returns the largest item in the Dataset, or -1 when every transaction
// is empty.
func (d *Dataset) MaxItem() int32 { return d.max }

// Size returns the total number of items over all transactions.
func (d *Dataset) Size() int { return len(d.items) }

// ReadFIMI reads a Dataset in the FIMI format: one transaction per line, items as
// non-negative decimal integers separated by spaces or tabs. A blank line is an
// empty transaction; a final line without a newline still counts when it has any
// characters. Lines may end in CRLF. Errors name the line.
func ReadFIMI(r io.Reader) (*Dataset, error) {
	p := fimiParser{d: newBuilder(), line: 1}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		chunk, err := br.ReadSlice('\n')
		if perr := p.feed(chunk); perr != nil {
			return nil, perr
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			p.finish()
			return p.d, nil
		default:
			return nil, fmt.Errorf("read fimi line %d: %w", p.line, err)
		}
	}
}

// fimiParser turns FIMI text into a Dataset, fed in chunks that may split lines
// and numbers anywhere.
type fimiParser struct {
	d       *Dataset
	line    int   // 1-based number of the line being read
	val     int64 // the number being read
	inNum   bool  // whether val holds digits not yet stored
	pending bool  // whether the current line has any characters
}

func (p *fimiParser) feed(b []byte) error {
	for _, c := range b {
		p.pending = true
		switch {
		case '0' <= c && c <= '9':
			p.val = p.val*10 + int64(c-'0')
			if p.val > math.MaxInt32 {
				return fmt.Errorf("fimi line %d: item exceeds %d", p.line, math.MaxInt32)
			}
			p.inNum = true
		case c == ' ' || c == '\t' || c == '\r':
			p.endNum()
		case c == '\n':
			p.endNum()
			p.d.endTx()
			p.line++
			p.pending = false
		default:
			return fmt.Errorf("fimi line %d: unexpected character %s", p.line, strconv.QuoteRune(rune(c)))
		}
	}
	return nil
}

func (p *fimiParser) endNum() {
	if p.inNum {
		p.d.items = append(p.d.items, int32(p.val))
		p.val, p.inNum = 0, false
	}
}

func (p *fimiParser) finish() {
	p.endNum()
	if p.pending {
		p.d.endTx()
	}
}

// WriteTo writes the Dataset in the FIMI format ReadFIMI reads: one line per
// transaction, items ascending, separated by single spaces. Weights are not
// written: a weighted Dataset is written once per transaction.
func (d *Dataset) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	var buf []byte
	for i := range d.Len() {
		buf = appendItems(buf[:0], d.Transaction(i))
		buf = append(buf, '\n')
		k, err := bw.Write(buf)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// appendItems appends items in decimal, separated by single spaces.
func appendItems(buf []byte, items []int32) []byte {
	for k, it := range items {
		if k > 0 {
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(it), 10)
	}
	return buf
}
