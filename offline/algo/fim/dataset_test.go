package fim

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// transactions returns the transactions of ds as slices.
func transactions(ds *Dataset) [][]int32 {
	out := make([][]int32, ds.Len())
	for i := range out {
		out[i] = slices.Clone(ds.Transaction(i))
	}
	return out
}

func TestReadFIMI(t *testing.T) {
	f := func(in string, want ...[]int32) {
		t.Helper()
		ds, err := ReadFIMI(strings.NewReader(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		got := transactions(ds)
		if !slices.EqualFunc(got, want, func(a, b []int32) bool { return slices.Equal(a, b) }) {
			t.Errorf("%q: got %v, want %v", in, got, want)
		}
	}
	f("")
	f("\n", nil)
	f("1 2 3\n", []int32{1, 2, 3})
	f("1 2 3", []int32{1, 2, 3})
	f("3 1 2 1 \n\n7\t8\r\n", []int32{1, 2, 3}, nil, []int32{7, 8})
	f("0\n  \n", []int32{0}, nil)
	f("5\n  ", []int32{5}, nil)
	f("2147483647 00012", []int32{12, 2147483647})
}

func TestReadFIMIErrors(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		_, err := ReadFIMI(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got error %v, want one containing %q", in, err, want)
		}
	}
	f("1 2\n3 x\n", "line 2: unexpected character 'x'")
	f("1\n2\n-3\n", "line 3: unexpected character '-'")
	f("1,2\n", "line 1: unexpected character ','")
	f("\n\n2147483648\n", "line 3: item exceeds 2147483647")

	boom := errors.New("boom")
	_, err := ReadFIMI(io.MultiReader(strings.NewReader("1\n2"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("read error: got %v", err)
	}
}

func TestNewDataset(t *testing.T) {
	ds, err := NewDataset([][]int32{{4, 2, 4}, nil, {9}})
	if err != nil {
		t.Fatal(err)
	}
	if got := transactions(ds); ds.Len() != 3 || !slices.Equal(got[0], []int32{2, 4}) || len(got[1]) != 0 || ds.MaxItem() != 9 || ds.Size() != 3 {
		t.Errorf("got %v, max %d, size %d", got, ds.MaxItem(), ds.Size())
	}
	if _, err := NewDataset([][]int32{{1}, {2, -1}}); err == nil || !strings.Contains(err.Error(), "transaction 1") {
		t.Errorf("negative item: got %v", err)
	}
}

// FuzzReadFIMI checks that ReadFIMI never panics and that what it reads survives
// a write and a second read unchanged.
func FuzzReadFIMI(f *testing.F) {
	for _, s := range []string{"", "\n", "1 2 3\n4\n", "3 1 2 1 \n\n7\t8\r\n", "2147483647", "1 x", "5\n  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ds, err := ReadFIMI(strings.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if _, err := ds.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := ReadFIMI(&buf)
		if err != nil {
			t.Fatalf("re-reading %q: %v", buf.String(), err)
		}
		a, b := transactions(ds), transactions(again)
		if !slices.EqualFunc(a, b, func(x, y []int32) bool { return slices.Equal(x, y) }) {
			t.Fatalf("round trip of %q: %v became %v", in, a, b)
		}
		for _, tx := range a {
			if !slices.IsSorted(tx) || len(slices.Compact(slices.Clone(tx))) != len(tx) {
				t.Fatalf("transaction %v not a sorted set", tx)
			}
		}
	})
}
