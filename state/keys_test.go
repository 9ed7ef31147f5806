package state

import (
	"bytes"
	"testing"
)

func TestReplayKeysUnambiguous(t *testing.T) {
	type pair struct {
		id   string
		hash uint64
	}
	pairs := []pair{
		{"", 0}, {"a", 0}, {"a\x00", 0}, {"a\x00\x00\x00\x00\x00\x00\x00\x00", 0},
		{"a", 0x0100000000000000}, {"\x01a", 0}, {"\x01", 0x6100000000000000},
	}
	seen := map[string]pair{}
	for _, p := range pairs {
		k := string(appendReplayKey(nil, p.id, p.hash))
		if len(k) != replayKeyLen(p.id) {
			t.Errorf("replayKeyLen(%q) = %d, key has %d bytes", p.id, replayKeyLen(p.id), len(k))
		}
		if q, dup := seen[k]; dup {
			t.Errorf("%+v and %+v share key %x", p, q, k)
		}
		seen[k] = p
	}
}

func TestPostingKeysOrderBySeq(t *testing.T) {
	a := appendPostingKey(nil, 3, 99, 255)
	b := appendPostingKey(nil, 3, 99, 256)
	bucket := appendBucket(nil, 3, 99)
	if bytes.Compare(a, b) >= 0 || !bytes.HasPrefix(a, bucket) || seqSuffix(b) != 256 || len(a) != postingKeyLen {
		t.Errorf("posting keys %x, %x under bucket %x", a, b, bucket)
	}
	if h := appendHashKey(nil, 5, 9); len(h) != hashKeyLen || seqSuffix(h) != 9 {
		t.Errorf("hash key %x", h)
	}
}
