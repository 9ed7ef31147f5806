package fim

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// hardDataset is dense enough that mining it at support 20 would take hours.
func hardDataset(t testing.TB) *Dataset {
	t.Helper()
	ds, err := NewDataset(randomContext(rand.New(rand.NewPCG(7, 7)), 60, 3000, 0.6))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func discard([]int32, int) error { return nil }

func TestMineDeadline(t *testing.T) { testDeadline(t, hardDataset(t), 20) }

// TestMineDeadlineChess stops chess at support 300, which would run for hours.
func TestMineDeadlineChess(t *testing.T) { testDeadline(t, fimiDataset(t, "chess.dat"), 300) }

func testDeadline(t *testing.T, ds *Dataset, minsup int) {
	for _, maximal := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		res, err := Mine(ctx, ds, Options{MinSupport: minsup, Maximal: maximal}, discard)
		took := time.Since(start)
		cancel()
		if err != nil || res.Complete || res.Stopped != context.DeadlineExceeded.Error() {
			t.Fatalf("maximal %v: %+v, %v", maximal, res, err)
		}
		// Generous for the race detector and a loaded machine; typically ~55 ms.
		if took > time.Second {
			t.Errorf("maximal %v: stopped after %v, long past the 50 ms deadline", maximal, took)
		}
		if !maximal && res.Itemsets == 0 {
			t.Errorf("emitted nothing in 50 ms")
		}
		t.Logf("maximal %v: %d itemsets in %v", maximal, res.Itemsets, took)
	}
}

// TestMineTimeout: Options.Timeout stops Mine as a context deadline does.
func TestMineTimeout(t *testing.T) {
	res, err := Mine(context.Background(), hardDataset(t), Options{MinSupport: 20, Timeout: 50 * time.Millisecond}, discard)
	if err != nil || res.Complete || res.Stopped != context.DeadlineExceeded.Error() {
		t.Errorf("%+v, %v", res, err)
	}
}

func TestMineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Mine(ctx, hardDataset(t), Options{MinSupport: 20}, discard)
	if err != nil || res.Complete || res.Stopped != "context canceled" || res.Itemsets != 0 {
		t.Errorf("%+v, %v", res, err)
	}
}

func TestMineMaxItemsets(t *testing.T) {
	ds := hardDataset(t)
	for _, limit := range []int{1, 1000} {
		n := 0
		res, err := Mine(context.Background(), ds, Options{MinSupport: 20, MaxItemsets: limit}, func([]int32, int) error { n++; return nil })
		if err != nil || res.Complete || res.Stopped != StoppedMaxItemsets || res.Itemsets != int64(limit) || n != limit {
			t.Errorf("limit %d: %+v, %v, %d calls", limit, res, err, n)
		}
	}
	// A limit equal to the whole count is no stop.
	ds, _ = NewDataset([][]int32{{1, 2}, {1}})
	res, err := Mine(context.Background(), ds, Options{MinSupport: 1, MaxItemsets: 2}, discard)
	if err != nil || !res.Complete || res.Itemsets != 2 {
		t.Errorf("limit at the count: %+v, %v", res, err)
	}
}

func TestMineMaxMemory(t *testing.T) {
	ds := hardDataset(t)
	// Too small for the root database: nothing is mined.
	res, err := Mine(context.Background(), ds, Options{MinSupport: 20, MaxMemory: 10 << 10}, discard)
	if err != nil || res.Complete || res.Stopped != StoppedMemory {
		t.Errorf("10 KiB: %+v, %v", res, err)
	}
	// Enough for the root but not for the deep conditional databases.
	res, err = Mine(context.Background(), ds, Options{MinSupport: 20, MaxMemory: 1 << 20}, discard)
	if err != nil || res.Complete || res.Stopped != StoppedMemory || res.Itemsets == 0 {
		t.Errorf("1 MiB: %+v, %v", res, err)
	}
	// Enough for everything.
	ds, _ = NewDataset([][]int32{{1, 2}, {1}})
	res, err = Mine(context.Background(), ds, Options{MinSupport: 1, MaxMemory: 1 << 20}, discard)
	if err != nil || !res.Complete {
		t.Errorf("small: %+v, %v", res, err)
	}
}

func TestMineEmitError(t *testing.T) {
	boom := errors.New("boom")
	res, err := Mine(context.Background(), hardDataset(t), Options{MinSupport: 20}, func([]int32, int) error { return boom })
	if !errors.Is(err, boom) || res.Complete || res.Itemsets != 1 {
		t.Errorf("%+v, %v", res, err)
	}
}

func TestOptionsValidate(t *testing.T) {
	ds, _ := NewDataset([][]int32{{1}})
	for _, o := range []Options{{}, {MinSupport: -1}, {MinSupport: 1, MaxItemsets: -1}, {MinSupport: 1, MaxMemory: -1}} {
		if _, err := Mine(context.Background(), ds, o, discard); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestMineProgress: Progress is called while mining, on Mine's goroutine, with
// the number of itemsets emitted so far, never decreasing.
func TestMineProgress(t *testing.T) {
	var emitted, last int64
	calls := 0
	o := Options{MinSupport: 20, MaxItemsets: 50_000, Progress: func(n int64) {
		if n != emitted || n < last {
			t.Fatalf("progress %d after %d, with %d emitted", n, last, emitted)
		}
		last = n
		calls++
	}}
	res, err := Mine(context.Background(), hardDataset(t), o, func([]int32, int) error { emitted++; return nil })
	if err != nil || res.Stopped != StoppedMaxItemsets {
		t.Fatalf("%+v, %v", res, err)
	}
	if calls == 0 || last == 0 {
		t.Errorf("%d progress calls, last %d, for %d itemsets", calls, last, res.Itemsets)
	}
	t.Logf("%d progress calls for %d itemsets", calls, res.Itemsets)
}
