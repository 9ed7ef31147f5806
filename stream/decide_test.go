package stream

import (
	"strconv"
	"testing"
	"time"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/state"
)

// deciderDocs are sketched documents for the Decider tests: text i is a
// near-copy of text i-1 for odd i (one word changed), otherwise new.
func deciderDocs(t *testing.T, m lsh.Method, n int, at func(i int) time.Time) []state.Doc {
	t.Helper()
	var sc lsh.Scratch
	docs := make([]state.Doc, n)
	for i := range docs {
		base := i - i%2
		words := make([]byte, 0, 2000)
		for w := range 200 {
			words = append(words, "word"+strconv.Itoa(base*1000+w)+" "...)
		}
		if i%2 == 1 {
			words = append(words, "changed"...)
		}
		sk, keys := m.Sketch(&sc, words, nil, nil)
		docs[i] = state.Doc{ID: "d" + strconv.Itoa(i), Source: "pages/" + strconv.Itoa(i%3) + "/" + strconv.Itoa(i),
			Time: at(i), ContentHash: lsh.ContentHash(words), Sketch: sk, Bands: keys}
	}
	return docs
}

func memStore(t *testing.T, m lsh.Method, setKeys bool) *state.Store {
	t.Helper()
	o := state.Options{InMemory: true}.ForMethod(m)
	o.SetKeys = o.SetKeys || setKeys
	st, err := state.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func minhash(t *testing.T) lsh.Method {
	t.Helper()
	c := lsh.Config{Method: lsh.MethodMinHash}
	c.EnsureDefaults()
	m, err := lsh.NewMethod(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// decideAll decides docs in batches of size, storing each batch as the shard
// server does, and returns the decisions in order.
func decideAll(t *testing.T, d *Decider, st *state.Store, docs []state.Doc, size int) []Decision {
	t.Helper()
	out, _ := decideCounting(t, d, st, docs, size)
	return out
}

// decideCounting is decideAll that also returns the candidates verified.
func decideCounting(t *testing.T, d *Decider, st *state.Store, docs []state.Doc, size int) (out []Decision, verified int) {
	t.Helper()
	for lo := 0; lo < len(docs); lo += size {
		dec, err := d.DecideBatch(docs[lo:min(lo+size, len(docs))])
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Put(dec.Stage); err != nil {
			t.Fatal(err)
		}
		d.Retire(dec)
		out = append(out, dec.Decisions...)
		verified += dec.Stats.Candidates
	}
	return out, verified
}

// TestDeciderContract checks contract 2 on the Decider alone, over an
// in-memory Badger store: a near-copy decided after its original points to
// it; a document is never a duplicate of itself or of one decided after it;
// a replay (same source and content) gets its first decision back, whatever
// was stored in between; and batch boundaries do not change decisions.
func TestDeciderContract(t *testing.T) {
	m := minhash(t)
	t0 := time.Unix(1000, 0)
	docs := deciderDocs(t, m, 20, func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) })
	var first []Decision
	for _, size := range []int{1, 3, 20} {
		st := memStore(t, m, false)
		got, verified := decideCounting(t, NewDecider(st, m, DeciderOptions{}), st, docs, size)
		if verified < len(docs)/2 {
			t.Errorf("batch %d: %d candidates verified, want one at least per near-copy (%d)", size, verified, len(docs)/2)
		}
		for i, g := range got {
			want := Unique
			if i%2 == 1 {
				want = NearDuplicate
			}
			if g.Verdict != want || (want == NearDuplicate && g.Of != docs[i-1].ID) {
				t.Fatalf("batch %d: %s is %s of %q, want %s", size, docs[i].ID, g.Verdict, g.Of, want)
			}
		}
		if first == nil {
			first = got
		}
		for i := range got {
			if got[i].Verdict != first[i].Verdict || got[i].Of != first[i].Of {
				t.Errorf("batch size %d changed %s: %+v, with batches of 1: %+v", size, docs[i].ID, got[i], first[i])
			}
		}
		// Replays of every document, after all were stored: first decisions.
		again := decideAll(t, NewDecider(st, m, DeciderOptions{}), st, docs, 7)
		for i := range again {
			if !again[i].Replayed || again[i].Verdict != got[i].Verdict || again[i].Of != got[i].Of || again[i].Cluster != got[i].Cluster {
				t.Errorf("replay of %s: %+v, first %+v", docs[i].ID, again[i], got[i])
			}
		}
	}
}

// TestDeciderSequenced checks the sequenced mode a shard runs: documents
// decided in their sequence-log order point to the earliest earlier match
// and name its place (OfPos), a unique document's cluster is ClusterOf its
// source, an exact copy is found among the candidates and wins over an
// earlier near-copy, and a replay gets its first decision back.
func TestDeciderSequenced(t *testing.T) {
	m := minhash(t)
	t0 := time.Unix(1000, 0)
	docs := deciderDocs(t, m, 12, func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) })
	for i := range docs {
		docs[i].Pos = uint64(100 + i)
	}
	st := memStore(t, m, true)
	d := NewDecider(st, m, DeciderOptions{Sequenced: true})
	got := decideAll(t, d, st, docs, 5)
	for i, g := range got {
		if i%2 == 0 {
			if g.Verdict != Unique || g.Cluster != ClusterOf(docs[i].Source) || g.OfPos != 0 {
				t.Errorf("%s: %+v, want unique in its own cluster", docs[i].ID, g)
			}
			continue
		}
		if g.Verdict != NearDuplicate || g.Of != docs[i-1].ID || g.OfPos != docs[i-1].Pos || g.Cluster != ClusterOf(docs[i-1].Source) {
			t.Errorf("%s: %+v, want a near duplicate of %s (pos %d) in its cluster", docs[i].ID, g, docs[i-1].ID, docs[i-1].Pos)
		}
	}
	// A later page, byte for byte the near-copy docs[1]: an exact copy wins
	// over the earlier near match docs[0], as with one instance.
	third := docs[1]
	third.Source, third.Time, third.Pos = "pages/9/99", t0.Add(time.Hour), 500
	dec, err := d.DecideBatch([]state.Doc{third})
	if err != nil {
		t.Fatal(err)
	}
	if g := dec.Decisions[0]; g.Verdict != ExactDuplicate || g.OfPos != docs[1].Pos || g.Cluster != ClusterOf(docs[0].Source) {
		t.Errorf("a later exact copy: %+v, want an exact duplicate of %s in its original's cluster", g, docs[1].ID)
	}
	d.Retire(dec)
	again := decideAll(t, d, st, docs[3:4], 1)
	if g := again[0]; !g.Replayed || g.Of != got[3].Of || g.OfPos != got[3].OfPos || g.Cluster != got[3].Cluster {
		t.Errorf("replay of %s: %+v, first %+v", docs[3].ID, g, got[3])
	}
}
