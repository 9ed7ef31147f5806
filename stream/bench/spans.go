package bench

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dedupstream/dedupstream/stream"
)

// SpanNames name the spans of a batch's time (Spans), in order: from its
// oldest record's input timestamp to its first record fetched (the
// producer's write, the broker, the fetch, and the fetching goroutine still
// busy with the batch before); gathering more; waiting for its last
// records' preparation; waiting for the decider; deciding; staging; waiting
// for the emitter; emitting until the broker's acknowledgement. In sharded
// mode (stream.BatchTimes) fetch ends at the batch's earliest record, gather
// is its wait in the reorder buffer, the wait for the decider includes the
// ask stage, and decide the shards' answers.
var SpanNames = [...]string{"fetch", "gather", "prepare", "to decider", "decide", "stage", "to emitter", "emit"}

// Spans splits t into the spans SpanNames names, between its consecutive
// Moments. They add up to t.Emitted - t.Oldest.
func Spans(t stream.BatchTimes) [len(SpanNames)]time.Duration {
	at := t.Moments()
	var s [len(SpanNames)]time.Duration
	for i := range s {
		s[i] = at[i+1].Sub(at[i])
	}
	return s
}

// Measured returns those of ts whose records were all produced at or after
// start (input timestamps are whole milliseconds): a latency run's measured
// batches, without its warm-up's.
func Measured(ts []stream.BatchTimes, start time.Time) []stream.BatchTimes {
	start = start.Truncate(time.Millisecond)
	var out []stream.BatchTimes
	for _, bt := range ts {
		if !bt.Oldest.Before(start) {
			out = append(out, bt)
		}
	}
	return out
}

// SpanMeans are the mean Spans of a set of batches.
type SpanMeans struct {
	Batches int
	Mean    [len(SpanNames)]time.Duration
}

// Total is the mean time from the oldest input timestamp to the
// acknowledgement: the spans' means added up.
func (m SpanMeans) Total() time.Duration {
	var t time.Duration
	for _, d := range m.Mean {
		t += d
	}
	return t
}

// MeanSpans returns the mean spans of all of ts and of the slowest share of
// them, by the time from their oldest record's input timestamp to their
// output's acknowledgement (at least one batch when ts has any): whether a
// tail is one span's or every span's. Each batch counts once, whatever its
// records, so the slowest share of batches is not quite the records behind
// a percentile.
func MeanSpans(ts []stream.BatchTimes, share float64) (all, slowest SpanMeans) {
	total := func(t stream.BatchTimes) time.Duration { return t.Emitted.Sub(t.Oldest) }
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b stream.BatchTimes) int { return cmp.Compare(total(a), total(b)) })
	mean := func(ts []stream.BatchTimes) SpanMeans {
		m := SpanMeans{Batches: len(ts)}
		if len(ts) == 0 {
			return m
		}
		var sum [len(SpanNames)]time.Duration
		for _, t := range ts {
			for i, s := range Spans(t) {
				sum[i] += s
			}
		}
		for i := range sum {
			m.Mean[i] = sum[i] / time.Duration(len(ts))
		}
		return m
	}
	n := 0
	if len(ts) > 0 {
		n = max(1, int(float64(len(ts))*share))
	}
	return mean(ts), mean(ts[len(ts)-n:])
}

// String formats m as "fetch 2.6, gather 2.0, … ms: 8.2 in all".
func (m SpanMeans) String() string {
	parts := make([]string, len(SpanNames))
	for i, name := range SpanNames {
		parts[i] = fmt.Sprintf("%s %.1f", name, m.Mean[i].Seconds()*1e3)
	}
	return fmt.Sprintf("%s ms: %.1f in all", strings.Join(parts, ", "), m.Total().Seconds()*1e3)
}
