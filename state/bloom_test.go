package state

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// headHashes returns the hashes of n distinct band-bucket head keys drawn from r,
// the keys most of the filter holds.
func headHashes(r *rand.Rand, n int) []uint64 {
	hs := make([]uint64, n)
	var kb [bucketLen]byte
	for i := range hs {
		hs[i] = keyHash(appendBucketHead(kb[:0], r.IntN(16), r.Uint64()))
	}
	return hs
}

// fpRate is the share of n fresh keys from r that f says may be present.
func fpRate(f *bloom, r *rand.Rand, n int) float64 {
	fp := 0
	var kb [64]byte
	for i := range n {
		if f.mayExist(appendReplayKey(kb[:0], "absent/"+fmt.Sprint(i), r.Uint64())) {
			fp++
		}
	}
	return float64(fp) / float64(n)
}

// Every key added is found, at any load (overfilled too) and after shrinking.
func TestBloomNoFalseNegatives(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		for _, size := range []int64{1, 100, 5_000, 70_000} {
			f := newBloom(size)
			hs := headHashes(r, int(3*size)+r.IntN(100)) // up to three times its capacity
			for _, h := range hs {
				f.add(h)
			}
			check := func(stage string) {
				t.Helper()
				for i, h := range hs {
					if !f.mayContain(h) {
						t.Fatalf("seed %d, size %d, %s: key %d of %d (hash %x) not found", seed, size, stage, i, len(hs), h)
					}
				}
			}
			check("added")
			f.shrink(f.capacity() / 2) // once
			check("halved")
			f.shrink(1) // to one block
			check("shrunk")
		}
	}
}

// At capacity the false-positive rate is near the design's 1%; half full, far less.
func TestBloomFalsePositiveRate(t *testing.T) {
	f := func(seed uint64, size int64, load float64, want float64) {
		t.Helper()
		r := rand.New(rand.NewPCG(seed, 9))
		b := newBloom(size)
		for _, h := range headHashes(r, int(load*float64(b.capacity()))) {
			b.add(h)
		}
		rate := fpRate(b, r, 200_000)
		t.Logf("capacity %d, load %.2f: false positives %.3f%%", b.capacity(), load, 100*rate)
		if rate > want {
			t.Errorf("capacity %d, load %.2f: false positives %.3f%%, want at most %.2f%%", b.capacity(), load, 100*rate, 100*want)
		}
	}
	f(1, 1<<20, 0, 0)
	f(1, 1<<20, 1, 0.015)
	f(2, 50_000, 1, 0.015)
	f(3, 1<<20, 0.5, 0.002)
	f(4, 1<<20, 2, 0.15) // overfilled: worse, but still a filter
}

func TestBloomCountsKeysOnce(t *testing.T) {
	b := newBloom(1000)
	hs := headHashes(rand.New(rand.NewPCG(5, 5)), 500)
	for range 3 {
		for _, h := range hs {
			b.add(h)
		}
	}
	// A key whose bits were all set by others is not counted: ~1% at most here.
	if n := b.keys.Load(); n > 500 || n < 490 {
		t.Errorf("keys = %d after adding 500 keys three times, want 490..500", n)
	}
	if b.full() {
		t.Errorf("full with %d keys at capacity %d", b.keys.Load(), b.capacity())
	}
	for _, h := range headHashes(rand.New(rand.NewPCG(6, 6)), int(b.capacity())) {
		b.add(h)
	}
	if !b.full() {
		t.Errorf("not full with %d keys at capacity %d", b.keys.Load(), b.capacity())
	}
}

// shrink halves the filter while it stays within its design load, keeping the
// false-positive rate of a filter built at the smaller size.
func TestBloomShrink(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	b := newBloom(1 << 20)
	bytes := b.bytes()
	hs := headHashes(r, 100_000)
	for _, h := range hs {
		b.add(h)
	}
	b.shrink(200_000)
	if got, want := b.bytes(), bytes/4; got != want {
		t.Errorf("shrunk to %d bytes, want %d (capacity %d → %d ≥ 200000)", got, want, newBloom(1<<20).capacity(), b.capacity())
	}
	for _, h := range hs {
		if !b.mayContain(h) {
			t.Fatalf("key %x lost by shrink", h)
		}
	}
	if rate := fpRate(b, r, 200_000); rate > 0.002 {
		t.Errorf("false positives after shrink to half load %.3f%%, want at most 0.2%%", 100*rate)
	}
	b.shrink(1 << 30) // too many keys to shrink for: unchanged
	if got := b.bytes(); got != bytes/4 {
		t.Errorf("shrink(1<<30) changed the size to %d bytes", got)
	}
}
