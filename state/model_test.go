package state

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// model is the reference the property test compares a Store with: plain maps
// and sorted slices, no caps beyond the documented ones.
type model struct {
	maxBucket, maxCandidates int
	docs                     map[uint64]Doc
	replay                   map[replayID]uint64
	hashes                   map[uint64][]uint64
	buckets                  map[[2]uint64][]uint64 // band, key → seqs
}

type replayID struct {
	key  string
	hash uint64
}

func newModel(maxBucket, maxCandidates int) *model {
	return &model{
		maxBucket: maxBucket, maxCandidates: maxCandidates,
		docs: map[uint64]Doc{}, replay: map[replayID]uint64{},
		hashes: map[uint64][]uint64{}, buckets: map[[2]uint64][]uint64{},
	}
}

func (m *model) put(d Doc) {
	m.docs[d.Seq] = d
	// The largest seq wins: the last Put when seqs ascend (see Replayed).
	id := replayID{d.replayKey(), d.ContentHash}
	m.replay[id] = max(m.replay[id], d.Seq)
	m.hashes[d.ContentHash] = append(m.hashes[d.ContentHash], d.Seq)
	for band, key := range d.Bands {
		k := [2]uint64{uint64(band), key}
		m.buckets[k] = append(m.buckets[k], d.Seq)
	}
}

func below(seqs []uint64, before uint64) []uint64 {
	out := slices.Sorted(slices.Values(seqs))
	n, _ := slices.BinarySearch(out, before)
	return out[:n]
}

func (m *model) exact(hash, before uint64) (uint64, bool) {
	seqs := below(m.hashes[hash], before)
	if len(seqs) == 0 {
		return 0, false
	}
	return seqs[0], true
}

func (m *model) candidates(bands []uint64, before uint64) ([]uint64, Capped) {
	var all []uint64
	var capped Capped
	for band, key := range bands {
		seqs := below(m.buckets[[2]uint64{uint64(band), key}], before)
		if len(seqs) > m.maxBucket {
			seqs = seqs[:m.maxBucket]
			capped.Buckets++
		}
		all = append(all, seqs...)
	}
	shared := map[uint64]int{}
	for _, seq := range all {
		shared[seq]++
	}
	all = slices.Sorted(maps.Keys(shared))
	if len(all) > m.maxCandidates {
		// Keep those sharing the most keys, the earliest among equals.
		slices.SortStableFunc(all, func(a, b uint64) int { return shared[b] - shared[a] })
		all = all[:m.maxCandidates]
		slices.Sort(all)
		capped.Candidates = true
	}
	return all, capped
}

func TestAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			o := Options{MaxBucket: 3, MaxCandidates: 4}
			var s *Store
			dir := ""
			if seed%2 == 0 {
				dir = t.TempDir()
				s = openDisk(t, dir, o)
			} else {
				s = openMem(t, o)
			}
			runModel(t, rand.New(rand.NewPCG(seed, 42)), s, newModel(3, 4), func() *Store {
				if dir == "" {
					return s
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				s = openDisk(t, dir, o)
				return s
			})
		})
	}
}

// runModel applies random puts and queries to s and m and compares the answers.
// reopen closes and reopens s (on-disk stores) and returns the new one.
func runModel(t *testing.T, r *rand.Rand, s *Store, m *model, reopen func() *Store) {
	var lastSeq uint64
	for step := range 400 {
		switch op := r.IntN(20); {
		case op < 6:
			var batch []Doc
			for range 1 + r.IntN(5) {
				seq := s.Reserve()
				if r.IntN(8) == 0 {
					continue // reserved, never stored: a gap
				}
				batch = append(batch, randomDoc(r, seq))
			}
			if r.IntN(4) == 0 {
				slices.Reverse(batch) // out of order within a Put
			}
			put(t, s, batch...)
			for _, d := range batch {
				m.put(d)
				lastSeq = max(lastSeq, d.Seq)
			}
		case op == 6:
			s = reopen()
			if got := s.Reserve(); got <= lastSeq {
				t.Fatalf("step %d: Reserve after reopen = %d, not above %d", step, got, lastSeq)
			}
		default:
			checkModel(t, r, s, m, lastSeq+2)
		}
	}
}

func randomDoc(r *rand.Rand, seq uint64) Doc {
	d := Doc{
		Seq: seq, ID: fmt.Sprint("doc", r.IntN(30)), ContentHash: uint64(r.IntN(15)),
		Verdict: uint8(1 + r.IntN(4)), Sketch: []byte{byte(seq), byte(seq >> 8)},
	}
	if r.IntN(3) == 0 {
		d.Source = fmt.Sprint("t/0/", seq)
	}
	if r.IntN(4) != 0 {
		d.Bands = make([]uint64, 4)
		for i := range d.Bands {
			d.Bands[i] = uint64(r.IntN(6))
		}
	}
	return d
}

func checkModel(t *testing.T, r *rand.Rand, s *Store, m *model, maxBefore uint64) {
	t.Helper()
	before := r.Uint64N(maxBefore + 1)
	bands := make([]uint64, 1+r.IntN(4))
	for i := range bands {
		bands[i] = uint64(r.IntN(7))
	}
	got, capped := candidates(t, s, bands, before)
	want, wantCapped := m.candidates(bands, before)
	if !slices.Equal(got, want) || capped != wantCapped {
		t.Fatalf("Candidates(%v, %d) = %v %+v, model %v %+v", bands, before, got, capped, want, wantCapped)
	}
	hash := uint64(r.IntN(16))
	d, ok, err := s.Exact(hash, before)
	wantSeq, wantOK := m.exact(hash, before)
	if err != nil || ok != wantOK || d.Seq != wantSeq {
		t.Fatalf("Exact(%d, %d) = %d %v %v, model %d %v", hash, before, d.Seq, ok, err, wantSeq, wantOK)
	}
	seq := r.Uint64N(maxBefore + 1)
	d, ok, err = s.Get(seq)
	wantDoc, wantOK := m.docs[seq]
	if err != nil || ok != wantOK {
		t.Fatalf("Get(%d) = %v %v, model %v", seq, ok, err, wantOK)
	}
	if ok {
		sameDoc(t, d, wantDoc)
		d, ok, err = s.Replayed(wantDoc.replayKey(), wantDoc.ContentHash)
		wantReplay := m.replay[replayID{wantDoc.replayKey(), wantDoc.ContentHash}]
		if err != nil || !ok || d.Seq != wantReplay {
			t.Fatalf("Replayed(%q, %d) = %d %v %v, model %d", wantDoc.replayKey(), wantDoc.ContentHash, d.Seq, ok, err, wantReplay)
		}
	}
}
