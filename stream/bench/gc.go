package bench

import (
	"runtime/metrics"
	"time"
)

// GCPauses is a snapshot of the process's stop-the-world pause histogram
// (garbage collection and other), to tell a latency stall from a collector
// pause: Since reports the pauses between two snapshots.
type GCPauses struct{ h *metrics.Float64Histogram }

const gcPausesMetric = "/sched/pauses/total/gc:seconds"

// ReadGCPauses takes a snapshot.
func ReadGCPauses() GCPauses {
	s := []metrics.Sample{{Name: gcPausesMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return GCPauses{}
	}
	return GCPauses{s[0].Value.Float64Histogram()}
}

// Since returns how many pauses came after the earlier snapshot and the upper
// bound of the longest one's histogram bucket.
func (p GCPauses) Since(earlier GCPauses) (n uint64, longest time.Duration) {
	if p.h == nil || earlier.h == nil || len(p.h.Counts) != len(earlier.h.Counts) {
		return 0, 0
	}
	for i, c := range p.h.Counts {
		if d := c - earlier.h.Counts[i]; d > 0 {
			n += d
			longest = time.Duration(p.h.Buckets[i+1] * float64(time.Second))
		}
	}
	return n, longest
}
