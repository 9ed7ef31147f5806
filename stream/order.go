package stream

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/dedupstream/dedupstream/state"
)

// ParseSource splits a prepare.SourceOf name. Kafka topic names hold no '/', so the
// last two fields are always the partition and offset.
func ParseSource(s string) (topic string, partition int, offset int64, ok bool) {
	rest, off, ok1 := cutLast(s)
	topic, part, ok2 := cutLast(rest)
	p, err1 := strconv.Atoi(part)
	o, err2 := strconv.ParseInt(off, 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return topic, p, o, true
}

func cutLast(s string) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// Before reports whether a comes before b in the global order: record
// timestamp, then input topic, partition and offset. Every instance of a
// sharded filter computes it from the records alone, so "earlier" means the
// same everywhere and no chain of duplicates can form a cycle.
func Before(a, b *state.Doc) bool { return compareOrder(a, b) < 0 }

func compareOrder(a, b *state.Doc) int {
	return compareAt(a.Time.UnixNano(), a.Source, b.Time.UnixNano(), b.Source)
}

// compareAt compares two places in the global order: record time in
// nanoseconds, then the SourceOf name by topic, partition and offset (a
// source that does not parse sorts by its text, after those that do).
func compareAt(at int64, as string, bt int64, bs string) int {
	if c := cmp.Compare(at, bt); c != 0 || as == bs {
		return c
	}
	ta, pa, oa, oka := ParseSource(as)
	tb, pb, ob, okb := ParseSource(bs)
	if !oka || !okb {
		return cmp.Or(-cmp.Compare(btoi(oka), btoi(okb)), strings.Compare(as, bs))
	}
	return comparePlaces(at, ta, pa, oa, bt, tb, pb, ob)
}

// comparePlaces is the global order itself: record time in nanoseconds, then
// topic, partition and offset. The shards compare stored documents by it
// (compareAt) and a front orders its fetched records by it (reorder).
func comparePlaces(at int64, atopic string, ap int, ao int64, bt int64, btopic string, bp int, bo int64) int {
	return cmp.Or(cmp.Compare(at, bt), strings.Compare(atopic, btopic), cmp.Compare(ap, bp), cmp.Compare(ao, bo))
}

// EarlierOrigin reports whether decision a points to an original that comes
// before b's in the global order.
func EarlierOrigin(a, b *Decision) bool {
	return compareAt(a.OfTime.UnixNano(), a.OfSource, b.OfTime.UnixNano(), b.OfSource) < 0
}

// ClusterOf is the cluster id that a document founds in a sharded filter: a
// hash of its input position, the same on every shard.
func ClusterOf(source string) uint64 { return xxhash.Sum64String(source) }
