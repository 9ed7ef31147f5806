package stream_test

import (
	"errors"
	"testing"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream"
)

var errCrash = errors.New("simulated crash")

// crashAt returns a hook that fails at stage of the n-th batch.
func crashAt(stage string, n int) func(string, int) error {
	return func(s string, batch int) error {
		if s == stage && batch == n {
			return errCrash
		}
		return nil
	}
}

// TestRestartKeepsVerdicts stops the pipeline at every point of the batch
// sequence — after emit but before state, after state but before commit, and a
// graceful stop — restarting each time on the same state directory, and checks
// the contracts: every record has an outcome, a replayed record keeps its first
// verdict, and no cluster of near-duplicates loses all its members.
func TestRestartKeepsVerdicts(t *testing.T) {
	h := newHarness(t, 2)
	h.cfg.Mode = stream.ModeDrop
	h.cfg.Kafka.Duplicates = topicDups
	var set pageSet
	g := gen.New(gen.Options{Seed: 5, CopyRate: 0.4, EditRate: 0.01})
	for i := 0; i < 600; i++ {
		set.add(g.Next())
	}
	h.produce(set.messages()...)

	for _, stop := range []func(string, int) error{
		crashAt(stream.AfterEmitted, 2),   // output written, postings not: staged verdicts replayed
		crashAt(stream.AfterPublished, 2), // state written, offsets not committed
		crashAt(stream.AfterStaged, 3),    // staged, nothing emitted
		crashAt(stream.AfterDecided, 1),   // nothing written at all
	} {
		if _, err := h.runToEnd(stop); !errors.Is(err, errCrash) {
			t.Fatalf("run ended with %v, want the simulated crash", err)
		}
	}
	if _, err := h.runUntil(50, nil); err != nil { // a graceful stop part-way
		t.Fatal(err)
	}
	counts, err := h.runToEnd(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("last run: %+v", counts)
	checkOutcomes(t, &set, append(h.readAll(topicOut), h.readAll(topicDups)...))
}

func checkOutcomes(t *testing.T, set *pageSet, outs []output) {
	t.Helper()
	first := make(map[string]output)
	replays := 0
	for _, o := range outs {
		f, seen := first[o.key]
		if !seen {
			first[o.key] = o
			continue
		}
		replays++
		for _, k := range []string{stream.HeaderVerdict, stream.HeaderOf, stream.HeaderCluster, stream.HeaderSimilarity} {
			if f.headers[k] != o.headers[k] {
				t.Errorf("%s replayed with %s %q, first emitted with %q", o.key, k, o.headers[k], f.headers[k])
			}
		}
		if f.topic != o.topic {
			t.Errorf("%s emitted to %s, replayed to %s", o.key, f.topic, o.topic)
		}
	}
	if len(first) != len(set.order) {
		t.Errorf("%d of %d records have an outcome", len(first), len(set.order))
	}
	if replays == 0 {
		t.Errorf("no record was replayed: the crashes did not exercise replay")
	}
	t.Logf("%d records, %d replayed outputs", len(first), replays)
	checkClustersSurvive(t, set, first)
}

// checkClustersSurvive: every origin's cluster has a member forwarded as unique.
func checkClustersSurvive(t *testing.T, set *pageSet, first map[string]output) {
	t.Helper()
	survived := make(map[string]bool)
	for id, o := range first {
		if o.topic == topicOut && o.headers[stream.HeaderVerdict] == "unique" {
			survived[set.pages[id].Origin] = true
		}
	}
	for _, id := range set.order {
		if p := set.pages[id]; p.Kind == gen.Original && !survived[p.ID] {
			t.Errorf("cluster of %s has no member on the output topic", p.ID)
		}
	}
}
