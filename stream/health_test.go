package stream

import (
	"errors"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// TestHealthStalls: a run of failed writes and an owned input partition that
// stands still with records behind it are stalls once they last the bound;
// a write that succeeds, a partition that moves or catches up, and a new
// generation end them.
func TestHealthStalls(t *testing.T) {
	now := time.Unix(1000, 0)
	h := newHealth(10 * time.Second)
	h.now = func() time.Time { return now }
	stalls := func(want ...string) {
		t.Helper()
		var got []string
		for _, s := range h.stalls("in", h.after) {
			got = append(got, s.String())
		}
		if len(got) != len(want) {
			t.Fatalf("stalls %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("stall %d: %q, want %q", i, got[i], want[i])
			}
		}
	}
	refused := errors.New("[3] Unknown Topic Or Partition")
	h.writeFailed([]kafka.Message{{Topic: "out"}, {Topic: "dlq"}, {Topic: "out"}}, refused)
	now = now.Add(9 * time.Second)
	stalls()
	h.writeFailed([]kafka.Message{{Topic: "out"}}, refused)
	now = now.Add(2 * time.Second)
	stalls("writes to out failing for 11s: [3] Unknown Topic Or Partition")
	h.wrote()
	stalls()

	// Generation 1 owns partitions 0 and 1: 0 is caught up, 1 has 5 records behind offset 7.
	h.offsets(1, []int{0, 1}, map[int]int64{0: 3, 1: 7}, map[int]int64{0: 0, 1: 5})
	now = now.Add(10 * time.Second)
	h.offsets(1, []int{0, 1}, map[int]int64{0: 3, 1: 7}, map[int]int64{0: 0, 1: 5})
	stalls("input in partition 1: 5 records not committed at offset 7, no progress for 10s")
	h.offsets(1, []int{0, 1}, map[int]int64{0: 3, 1: 8}, map[int]int64{0: 0, 1: 4}) // it moved
	now = now.Add(9 * time.Second)
	h.offsets(1, []int{0, 1}, map[int]int64{0: 3, 1: 8}, map[int]int64{0: 0, 1: 4})
	stalls()
	now = now.Add(2 * time.Second)
	stalls("input in partition 1: 4 records not committed at offset 8, no progress for 11s")
	h.offsets(2, []int{1}, map[int]int64{1: 8}, map[int]int64{1: 4}) // a rebalance: the new owner gets the bound afresh
	stalls()
	now = now.Add(10 * time.Second)
	h.offsets(2, []int{1}, map[int]int64{1: 8}, map[int]int64{1: 0}) // caught up (records removed by retention, say)
	stalls()
}
