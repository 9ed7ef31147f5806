package bench

import (
	"context"
	"slices"
	"time"
)

// StateSample is what WatchState saw at a moment: this process's CPU time
// and the tables of each level of the state.
type StateSample struct {
	At     time.Time
	CPU    time.Duration
	Tables []int64
}

// WatchState samples this process's CPU time and the state's tables per
// level (shape: state.Store's LevelShape, tables and bytes alternating) at
// once and then as SampleEvery does, for bench --timeline; stop ends it and
// returns the samples.
func WatchState(shape func() []int64) (stop func() []StateSample) {
	var out []StateSample
	sample := func() {
		var tables []int64
		for i, v := range shape() {
			if i%2 == 0 { // LevelShape alternates tables and bytes
				tables = append(tables, v)
			}
		}
		out = append(out, StateSample{At: time.Now(), CPU: CPUTime(), Tables: tables})
	}
	sample()
	end := SampleEvery(sample)
	return func() []StateSample {
		end()
		return out
	}
}

// Annotate adds to each window of tl the process's CPU over it (cores) and
// the state's tables per level at its end, from the first samples at or
// after its bounds.
func Annotate(tl []Window, ss []StateSample) []Window {
	at := func(t time.Time) (StateSample, bool) {
		i, _ := slices.BinarySearchFunc(ss, t, func(s StateSample, t time.Time) int { return s.At.Compare(t) })
		if i >= len(ss) {
			return StateSample{}, false
		}
		return ss[i], true
	}
	for i := range tl {
		a, ok1 := at(tl[i].Start)
		b, ok2 := at(tl[i].Start.Add(TimelineStep))
		if !ok1 || !ok2 || !b.At.After(a.At) {
			continue
		}
		tl[i].Cores = (b.CPU - a.CPU).Seconds() / b.At.Sub(a.At).Seconds()
		tl[i].Tables = b.Tables
	}
	return tl
}

// Compacting is what SettleCompactions reads of a state (state.Store).
type Compacting interface {
	LevelShape() []int64
	CompactionScore() float64
}

// settleMax bounds the wait of SettleCompactions.
const settleMax = 5 * time.Minute

// SettleCompactions waits until no level of the filter's state is due for
// compaction and the levels' tables have not changed for settleQuiet (the
// compactions already running have finished), or settleMax has passed, and
// returns how long it waited. A throughput run writes faster than two cores
// compact, and the debt it leaves is paid by the compactors right after the
// state is opened again, taking the CPU from the pipeline for seconds;
// without the wait the latency mode measures that, not a filter with the
// throughput run's documents in its steady state.
func SettleCompactions(ctx context.Context, st Compacting) time.Duration {
	start := time.Now()
	shape, still := st.LevelShape(), time.Now()
	for time.Since(start) < settleMax {
		if next := st.LevelShape(); !slices.Equal(next, shape) || st.CompactionScore() >= 1 {
			shape, still = next, time.Now()
		} else if time.Since(still) >= settleQuiet {
			break
		}
		select {
		case <-ctx.Done():
			return time.Since(start)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return time.Since(start)
}

// settleQuiet is how long the levels' tables must stay as they are for
// SettleCompactions: longer than a compaction of this workload runs without
// finishing a table set (the 1M runs' logs show iterations of 20–572 ms).
const settleQuiet = 2 * time.Second
