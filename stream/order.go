package stream

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
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

// comparePlaces orders records by time in nanoseconds, then topic, partition
// and offset: the order a sharded front hands its fetched records on in
// (reorder).
func comparePlaces(at int64, atopic string, ap int, ao int64, bt int64, btopic string, bp int, bo int64) int {
	return cmp.Or(cmp.Compare(at, bt), strings.Compare(atopic, btopic), cmp.Compare(ap, bp), cmp.Compare(ao, bo))
}

// EarlierOrigin reports whether decision a points to an original that comes
// before b's in a sharded filter's sequence log.
func EarlierOrigin(a, b *Decision) bool { return a.OfPos < b.OfPos }

// ClusterOf is the cluster id that a document founds in a sharded filter: a
// hash of its input position, the same on every shard.
func ClusterOf(source string) uint64 { return xxhash.Sum64String(source) }
