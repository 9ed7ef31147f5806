package stream

import (
	"context"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/stream/prepare"
)

// reorder hands a sharded front's records on in record-time order across
// the input partitions it reads, as Kafka Streams picks the record with the
// smallest timestamp among a task's partitions (max.task.idle.ms): kafka-go
// delivers each partition's fetches in runs, and a backlog read one partition
// ahead of another would otherwise go into the sequence log, whose order
// decides which of two near-copies is the original, one partition after the
// other. Correctness does not rest on it (the shards apply the log's order,
// whatever it is); it keeps that order close to the crawl's. A record is
// released once every partition seen lately has a later record buffered or
// has nothing more to read (caught up to its high watermark), or once it has
// waited idle. Each partition's records keep their offset order, so commits
// are unaffected. It is used by one goroutine.
type reorder struct {
	idle   time.Duration
	limit  int // records buffered at most; past it the earliest goes regardless
	queues map[int]*partitionQueue
	n      int // records buffered
	gen    int // the membership generation expect last saw
}

type partitionQueue struct {
	msgs       []*pending
	caughtUp   bool      // the last record fetched was at the high watermark
	emptySince time.Time // when the queue last became empty
}

// expect adds the partitions of a new generation that have delivered
// nothing yet, as empty since now: a partition not heard from could still
// hold earlier records (at the start, all but the first partition fetched
// from), so releases wait for it, up to idle, unless it turns out to be
// caught up. Called again for the same generation, it does nothing.
func (r *reorder) expect(gen int, parts []int, now time.Time) {
	if gen == r.gen {
		return
	}
	r.gen = gen
	for _, p := range parts {
		if _, ok := r.queues[p]; !ok {
			r.queues[p] = &partitionQueue{emptySince: now}
		}
	}
}

func newReorder(idle time.Duration, limit int) *reorder {
	return &reorder{idle: idle, limit: limit, queues: make(map[int]*partitionQueue)}
}

func (r *reorder) add(pm *pending, now time.Time) {
	m := &pm.msg
	q := r.queues[m.Partition]
	if q == nil {
		q = &partitionQueue{}
		r.queues[m.Partition] = q
	}
	pm.arrived = now
	q.msgs = append(q.msgs, pm)
	q.caughtUp = m.HighWaterMark <= m.Offset+1
	r.n++
}

// release appends up to max records, in the global order, that may go now.
func (r *reorder) release(dst []*pending, max int, now time.Time) []*pending {
	for len(dst) < max {
		head := r.earliest()
		if head == nil || !r.mayRelease(head, now) {
			break
		}
		dst = append(dst, head.msgs[0])
		head.msgs[0] = nil // released: the queue no longer holds it, nor its item
		head.msgs = head.msgs[1:]
		if len(head.msgs) == 0 {
			head.emptySince = now
		}
		r.n--
	}
	return dst
}

// earliest is the queue whose head comes first in the global order.
func (r *reorder) earliest() *partitionQueue {
	var best *partitionQueue
	for _, q := range r.queues {
		if len(q.msgs) > 0 && (best == nil || compareMessages(&q.msgs[0].msg, &best.msgs[0].msg) < 0) {
			best = q
		}
	}
	return best
}

// mayRelease reports whether head's first record may go: no partition that
// may still deliver an earlier record is empty, or it has waited idle. A
// partition empty for longer than idle (revoked, or quiet) is forgotten.
func (r *reorder) mayRelease(head *partitionQueue, now time.Time) bool {
	if now.Sub(head.msgs[0].arrived) >= r.idle || r.n >= r.limit {
		return true
	}
	for p, q := range r.queues {
		if len(q.msgs) > 0 || q.caughtUp {
			continue
		}
		if now.Sub(q.emptySince) >= r.idle {
			delete(r.queues, p)
			continue
		}
		return false
	}
	return true
}

func compareMessages(a, b *kafka.Message) int {
	return comparePlaces(a.Time.UnixNano(), a.Topic, a.Partition, a.Offset, b.Time.UnixNano(), b.Topic, b.Partition, b.Offset)
}

// fetchOrdered is fetch for a sharded front: it gathers records (waiting for
// one if none is buffered) by the rule of FetchBatch — up to batch.linger
// while the decider is busy, what arrives within an idleWindow while it
// waits — and returns up to a batch of them in the global order. While none
// may go yet it keeps fetching (the records a lagging partition owes may be
// queued behind others) until one may, rather than spin. While some may go
// but not a batch's worth, it keeps fetching and releasing by the same rule:
// a backlog read in runs, one partition's longer than the buffer, fills it
// with records that may not go yet, and past its limit one goes for each
// that arrives; the batch gathers those instead of going a record at a time.
// Each record is prepared while it waits in the buffer (buffer).
func (p *Pipeline) fetchOrdered(ctx context.Context) ([]*pending, error) {
	r := p.order
	if r.n == 0 {
		m, err := p.reader.FetchMessage(ctx)
		if err != nil {
			return nil, err
		}
		p.buffer(m)
	}
	b := p.cfg.Batch
	deadline := time.Now().Add(b.Linger)
	linger(ctx, b, p.waiting.Load, func(window context.Context) bool {
		return p.gather(window, 2*b.Size)
	})
	if gen, parts := p.member.assigned(); parts != nil {
		r.expect(gen, parts, time.Now())
	}
	out := make([]*pending, 0, b.Size)
	for ctx.Err() == nil {
		now := time.Now()
		out = r.release(out, b.Size, now)
		wait := r.idle / 10 // nothing may go yet: read on, a little at a time
		if len(out) > 0 {
			if len(out) == b.Size || !now.Before(deadline) || !b.HoldWhenIdle && p.waiting.Load() {
				break
			}
			wait = min(deadline.Sub(now), idleWindow) // a part may go: gather on while the decider is busy
		}
		window, cancel := context.WithTimeout(ctx, wait)
		p.gather(window, r.limit)
		cancel()
	}
	return out, nil
}

// gather adds fetched records to the reorder buffer until it holds n or
// window ends (fetchInto).
func (p *Pipeline) gather(window context.Context, n int) (timedOut bool) {
	return fetchInto(window, p.reader, func() bool { return p.order.n >= n }, p.buffer)
}

// pending is a record in a sharded front's reorder buffer, handed to the
// prepare workers as it arrives: it is prepared while it waits for the
// global order. Workers take records in arrival order, so a record released
// early (a lagging partition's) may wait for others to be prepared first.
type pending struct {
	msg     kafka.Message
	arrived time.Time // when it was fetched
	item    prepare.Item
	done    sync.WaitGroup // item is prepared
}

// buffer adds m to the reorder buffer and hands it to the prepare workers.
func (p *Pipeline) buffer(m kafka.Message) {
	pm := &pending{msg: m}
	pm.done.Add(1)
	p.order.add(pm, time.Now())
	p.workers.Submit(&pm.msg, &pm.item, &pm.done)
}
