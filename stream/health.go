package stream

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"go.uber.org/zap"
)

// health is what the pipeline knows of its own progress beyond its group
// membership, for readiness: its writes failing, or an input partition it
// owns with records not committed that has not moved, for longer than
// after. It is safe for concurrent use.
type health struct {
	after time.Duration
	now   func() time.Time

	mu      sync.Mutex
	writing failure         // the current run of failed writes; zero when the last write succeeded
	input   map[int]*moving // owned input partitions, by partition, in generation gen
	gen     int
}

// failure is a run of failed writes: since the first, to which topics, and
// the last error.
type failure struct {
	since  time.Time
	topics []string
	err    error
}

// moving is an owned input partition's committed offset and lag, and since
// when it has stood still: the last time it was seen to move or caught up,
// or first seen in its generation.
type moving struct {
	committed int64
	lag       int64
	since     time.Time
}

func newHealth(after time.Duration) *health {
	if after <= 0 {
		after = 30 * time.Second
	}
	return &health{after: after, now: time.Now}
}

// wrote records a successful write.
func (h *health) wrote() {
	h.mu.Lock()
	h.writing = failure{}
	h.mu.Unlock()
}

// writeFailed records a failed write of msgs.
func (h *health) writeFailed(msgs []kafka.Message, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.writing.since.IsZero() {
		h.writing.since = h.now()
	}
	h.writing.topics, h.writing.err = topicsOf(msgs), err
}

// offsets records the committed offsets and lags of the input partitions
// owned in generation gen, as the brokers reported them.
func (h *health) offsets(gen int, parts []int, committed, lags map[int]int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	if gen != h.gen || h.input == nil {
		h.gen, h.input = gen, make(map[int]*moving, len(parts))
	}
	for p := range h.input {
		if !slices.Contains(parts, p) {
			delete(h.input, p)
		}
	}
	for _, p := range parts {
		c, ok := committed[p]
		lag := lags[p]
		m := h.input[p]
		switch {
		case !ok:
			continue
		case m == nil: // a new generation's partition has the whole bound to start moving
			m = &moving{since: now}
			h.input[p] = m
		case lag == 0 || c != m.committed:
			m.since = now
		}
		m.committed, m.lag = c, lag
	}
}

// Stall is one reason the pipeline is not making progress.
type Stall struct {
	Reason    string // "write" or "input"
	Topic     string
	Partition int // input stalls only; -1 for writes
	For       time.Duration
	Detail    string
}

func (s Stall) String() string {
	if s.Reason == "write" {
		return fmt.Sprintf("writes to %s failing for %s: %s", s.Topic, s.For.Round(time.Second), s.Detail)
	}
	return fmt.Sprintf("input %s partition %d: %s, no progress for %s", s.Topic, s.Partition, s.Detail, s.For.Round(time.Second))
}

// stalls returns the stalls of at least min's duration, writes first, then
// input partitions in order.
func (h *health) stalls(input string, min time.Duration) []Stall {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	var out []Stall
	if w := h.writing; !w.since.IsZero() && now.Sub(w.since) >= min {
		for _, t := range w.topics {
			out = append(out, Stall{Reason: "write", Topic: t, Partition: -1, For: now.Sub(w.since), Detail: w.err.Error()})
		}
	}
	parts := make([]int, 0, len(h.input))
	for p := range h.input {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		m := h.input[p]
		if m.lag > 0 && now.Sub(m.since) >= min {
			out = append(out, Stall{Reason: "input", Topic: input, Partition: p, For: now.Sub(m.since),
				Detail: fmt.Sprintf("%d records not committed at offset %d", m.lag, m.committed)})
		}
	}
	return out
}

// Health returns nil while the pipeline makes progress, else an error that
// says what has not progressed for longer than the bound (Deps.StallAfter):
// a run of failed writes, with the topics and the last error, or an owned
// input partition with records not committed whose committed offset has not
// moved.
func (p *Pipeline) Health() error {
	ss := p.health.stalls(p.cfg.Kafka.Input, p.health.after)
	if len(ss) == 0 {
		return nil
	}
	msgs := make([]string, len(ss))
	for i, s := range ss {
		msgs[i] = s.String()
	}
	return fmt.Errorf("not progressing: %s", strings.Join(msgs, "; "))
}

// watchProgress samples the committed offsets of the input partitions this
// member owns, every interval until ctx ends, so that Health sees a
// partition that stops moving; it sets dedupstream_stalled_seconds and logs
// each stall once when it passes the bound.
func (p *Pipeline) watchProgress(ctx context.Context) {
	every := min(max(p.health.after/3, 50*time.Millisecond), 5*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	reported := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		p.sampleProgress(ctx)
		seen := map[string]bool{}
		p.m.stalled.Reset()
		for _, s := range p.health.stalls(p.cfg.Kafka.Input, 0) {
			part := ""
			if s.Partition >= 0 {
				part = strconv.Itoa(s.Partition)
			}
			p.m.stalled.WithLabelValues(s.Reason, s.Topic, part).Set(s.For.Seconds())
			if s.For < p.health.after {
				continue
			}
			key := s.Reason + s.Topic + part
			seen[key] = true
			if !reported[key] {
				p.log.Warn("not ready: "+s.String(), zap.Duration("bound", p.health.after))
			}
		}
		reported = seen
	}
}

// sampleProgress reads the committed offsets and lags of the partitions of
// the current generation.
func (p *Pipeline) sampleProgress(ctx context.Context) {
	gen, parts := p.member.assigned()
	if parts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, min(p.health.after, 5*time.Second))
	defer cancel()
	offs, err := groupOffsets(ctx, p.lagClient, p.cfg.Kafka.Group, p.cfg.Kafka.Input)
	if err != nil {
		p.log.Debug("input progress not sampled", zap.Error(err))
		return
	}
	committed, lags := make(map[int]int64, len(offs)), make(map[int]int64, len(offs))
	for part, o := range offs {
		committed[part], lags[part] = o.committed, o.lag()
	}
	p.health.offsets(gen, parts, committed, lags)
}
