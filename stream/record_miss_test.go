package stream_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/segmentio/kafka-go"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/state"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// recordMiss explains why one copy was not flagged as a duplicate of its
// origin, reconstructed from the state after the run.
type recordMiss struct {
	id, origin, edits string
	verdict, of       string
	shared            int  // index keys the copy shares with its original
	found             bool // the original is among the state's candidates for the copy
	capped            state.Capped
	candidates        int // candidates with the configured caps
	uncapped          int // candidates with no caps
	rank              int // the original's 1-based position among the uncapped candidates; 0 if absent
	cmp               lsh.RecordComparison
	exact             []float64 // each field's exact resemblance; -1 unless in both
	exactSim          float64   // their weighted mean, as cmp.Similarity is of the estimates
}

// cause names the first step at which the original was lost.
func (m recordMiss) cause(minFields int) string {
	switch {
	case m.shared == 0:
		return "no-shared-key"
	case !m.found && m.rank > 0:
		return "cut-by-cap"
	case !m.found:
		return "not-a-candidate"
	case m.cmp.Comparable < minFields:
		return "min-fields"
	case !m.cmp.Near:
		return "under-threshold"
	}
	return "near-but-not-chosen"
}

func (m recordMiss) String() string {
	var fs []string
	for i, f := range m.cmp.Fields {
		if f.Comparable() {
			fs = append(fs, fmt.Sprintf("%s=%.3f(exact %.3f)", f.Name, f.Similarity, m.exact[i]))
		} else {
			fs = append(fs, fmt.Sprintf("%s=–(%t,%t)", f.Name, f.InA, f.InB))
		}
	}
	return fmt.Sprintf("%s of %s [%s]: got %s of %q; shared keys %d; candidate %t (%d, capped %+v; uncapped %d, original %d-th); similarity %.3f (exact %.3f) over %d fields: %s",
		m.id, m.origin, m.edits, m.verdict, m.of, m.shared, m.found, m.candidates, m.capped, m.uncapped, m.rank,
		m.cmp.Similarity, m.exactSim, m.cmp.Comparable, strings.Join(fs, " "))
}

// explainMisses reopens the state of a finished record-mode run and, for
// each copy in missed, compares it with its original and looks its keys up
// as the decider would (with the default caps and with none).
func explainMisses(t *testing.T, h *harness, pubs []gen.Publication, msgs []kafka.Message, missed []string) []recordMiss {
	t.Helper()
	m := h.method().(*lsh.RecordMethod)
	cl := clean.New(clean.Options{})
	byID := map[string]int{}
	for i, p := range pubs {
		byID[p.ID] = i
	}
	texts := map[string][]byte{}
	sketch := func(id string) (sk []byte, keys []uint64) {
		text, sk, err := prepare.New(h.cfg.Decode, cl, m).PrepareValue(msgs[byID[id]].Value)
		if err != nil {
			t.Fatalf("sketch %s: %v", id, err)
		}
		texts[id] = text
		var sc lsh.Scratch
		_, keys = m.Sketch(&sc, text, nil, nil)
		return sk, keys
	}
	seqs := storedSeqs(t, h, m)
	out := make([]recordMiss, len(missed))
	for i, id := range missed {
		p := pubs[byID[id]]
		cs, ck := sketch(id)
		os, ok := sketch(p.Origin)
		cmp, err := m.CompareFields(cs, os)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = recordMiss{id: id, origin: p.Origin, edits: p.Edits, cmp: cmp, shared: sharedKeys(ck, ok)}
		out[i].exact, out[i].exactSim = exactFields(m.Fields(), cmp, texts[id], texts[p.Origin])
	}
	lookup := func(maxes int, fill func(*recordMiss, []state.Doc, state.Capped)) {
		o := h.stateOptions(m)
		o.MaxBucket, o.MaxCandidates = maxes, maxes
		st, err := state.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for i := range out {
			_, keys := sketch(out[i].id)
			cands, capped, err := st.Candidates(nil, keys, seqs[out[i].id])
			if err != nil {
				t.Fatal(err)
			}
			fill(&out[i], cands, capped)
		}
	}
	indexOf := func(cands []state.Doc, seq uint64) int {
		return 1 + slices.IndexFunc(cands, func(d state.Doc) bool { return d.Seq == seq })
	}
	lookup(0, func(r *recordMiss, cands []state.Doc, capped state.Capped) {
		r.candidates, r.capped, r.found = len(cands), capped, indexOf(cands, seqs[r.origin]) > 0
	})
	lookup(1<<30, func(r *recordMiss, cands []state.Doc, _ state.Capped) {
		r.uncapped, r.rank = len(cands), indexOf(cands, seqs[r.origin])
	})
	return out
}

// storedSeqs maps every stored record id to its sequence number.
func storedSeqs(t *testing.T, h *harness, m lsh.Method) map[string]uint64 {
	t.Helper()
	st, err := state.Open(h.stateOptions(m))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seqs := map[string]uint64{}
	err = st.Scan(func(d state.Doc) error {
		seqs[d.ID] = d.Seq
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seqs
}

func sharedKeys(a, b []uint64) int {
	n := 0
	for _, k := range a {
		if slices.Contains(b, k) {
			n++
		}
	}
	return n
}

// logMisses logs why each missed copy was missed, and the count per cause.
func logMisses(t *testing.T, h *harness, pubs []gen.Publication, msgs []kafka.Message, out []output, missed []string) {
	t.Helper()
	if len(missed) == 0 {
		return
	}
	verdict := map[string]output{}
	for _, o := range out {
		verdict[o.key] = o
	}
	causes := map[string]int{}
	for _, r := range explainMisses(t, h, pubs, msgs, missed) {
		o := verdict[r.id]
		r.verdict, r.of = o.headers["dedup.verdict"], o.headers["dedup.of"]
		c := r.cause(h.record.MinFields)
		causes[c]++
		t.Logf("missed %s: %v", c, r)
	}
	t.Logf("misses by cause: %v", causes)
}

// exactFields returns the exact resemblance of each field both record texts
// have (the shingle or author-key sets the sketches estimate), -1 for the
// others, and their weighted mean.
func exactFields(fields []lsh.RecordField, cmp lsh.RecordComparison, a, b []byte) ([]float64, float64) {
	fa, fb := bytes.Split(a, []byte{lsh.RecordFieldSep}), bytes.Split(b, []byte{lsh.RecordFieldSep})
	out := make([]float64, len(fields))
	var num, den float64
	for i, f := range fields {
		out[i] = -1
		if !cmp.Fields[i].Comparable() {
			continue
		}
		out[i] = lsh.OverlapOf(exactSet(f, fa[i]), exactSet(f, fb[i])).Resemblance()
		num += f.Weight * out[i]
		den += f.Weight
	}
	return out, num / max(den, 1e-9)
}

func exactSet(f lsh.RecordField, text []byte) []uint64 {
	var set []uint64
	switch f.Kind {
	case lsh.KindText:
		set = lsh.Shingling{Length: f.Shingle.Length, Offset: 1, Chars: f.Shingle.Chars}.Append(nil, text)
	default: // authors keys, or one year or exact value
		for _, k := range bytes.Split(text, []byte{lsh.RecordItemSep}) {
			set = append(set, xxhash.Sum64(k))
		}
	}
	return lsh.SortedSet(set)
}

// TestRecordTitleEstimates checks that the record-mode title estimate is
// unbiased on generated copies with a title typo, the edit behind the misses
// under the threshold: over all of them, the mean of estimate − exact
// resemblance lies within four standard errors of zero. Run with -v for the
// tail counts (docs/bench/sketches.md "Record mode").
func TestRecordTitleEstimates(t *testing.T) {
	pubs := recordPubs(t)
	h := recordHarness(t)
	h.record.NumPerm = *recordNumPerm
	h.record.EnsureDefaults()
	m := h.method().(*lsh.RecordMethod)
	cl := clean.New(clean.Options{})
	byID := map[string]gen.Publication{}
	for _, p := range pubs {
		byID[p.ID] = p
	}
	sketch := func(p gen.Publication) ([]byte, []byte) {
		text, sk, err := prepare.New(h.cfg.Decode, cl, m).PrepareValue(jsonMessage(t, p.ID, p.Record).Value)
		if err != nil {
			t.Fatalf("sketch %s: %v", p.ID, err)
		}
		return text, sk
	}
	k := float64(h.record.NumPerm)
	var n, below2, below3 int
	var sum, variance float64
	for _, p := range pubs {
		if !strings.Contains(p.Edits, "title-typo") {
			continue
		}
		ta, sa := sketch(p)
		tb, sb := sketch(byID[p.Origin])
		cmp, err := m.CompareFields(sa, sb)
		if err != nil {
			t.Fatal(err)
		}
		exact, _ := exactFields(m.Fields(), cmp, ta, tb)
		j, d := exact[0], cmp.Fields[0].Similarity-exact[0]
		sd := math.Sqrt(j * (1 - j) / k)
		n++
		sum += d
		variance += sd * sd
		if d < -2*sd {
			below2++
		}
		if d < -3*sd {
			below3++
		}
	}
	if n < 50 {
		t.Fatalf("%d title-typo copies, too few to judge", n)
	}
	mean, se := sum/float64(n), math.Sqrt(variance)/float64(n)
	t.Logf("%d title-typo copies: mean estimate − exact %.4f (standard error %.4f); below −2σ %d (%.1f%%), below −3σ %d (%.2f%%)",
		n, mean, se, below2, 100*float64(below2)/float64(n), below3, 100*float64(below3)/float64(n))
	if math.Abs(mean) > 4*se {
		t.Errorf("title estimate biased: mean error %.4f, standard error %.4f", mean, se)
	}
}
