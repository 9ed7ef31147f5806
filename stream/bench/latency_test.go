package bench_test

import (
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/stream/bench"
)

func TestPercentile(t *testing.T) {
	d := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	f := func(q float64, want time.Duration) {
		t.Helper()
		if got := bench.Percentile(d, q); got != want {
			t.Errorf("percentile(1..10, %v) = %d, want %d", q, got, want)
		}
	}
	f(0.5, 5)
	f(0.99, 10)
	f(1, 10)
	f(0.1, 1)
	f(0.11, 2)
	f(0.01, 1)
	if bench.Percentile(nil, 0.5) != 0 {
		t.Error("percentile of nothing is not 0")
	}
}
