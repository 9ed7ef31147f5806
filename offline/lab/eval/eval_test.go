package eval

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/offline/lab/oracle"
	"github.com/dedupstream/dedupstream/offline/lab/quality"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

func generate(n int, o gen.Options) []gen.Page {
	g := gen.New(o)
	pages := make([]gen.Page, n)
	for i := range pages {
		pages[i] = g.Next()
	}
	return pages
}

// TestExactMatchesOracle is the acceptance check of the generator's ground truth:
// the resemblance and containments (both directions) Exact states for every generated
// (copy, origin) pair, of every kind, equal those the exact oracle recomputes, through
// its inverted index, from the same pages.
func TestExactMatchesOracle(t *testing.T) {
	pages := generate(800, gen.Options{Seed: 7, Kinds: gen.AllKinds()})
	sets := Sets(CleanPages(pages))
	stated, err := Exact(pages, sets)
	if err != nil {
		t.Fatal(err)
	}
	found, _, err := oracle.Pairs(sets, oracle.Options{MaxDocFreq: -1})
	if err != nil {
		t.Fatal(err)
	}
	at := make(map[string]int)
	for i, p := range pages {
		at[p.ID] = i
	}
	byPair := make(map[[2]int]lsh.Overlap)
	for _, p := range found {
		byPair[[2]int{p.A, p.B}] = p.Overlap
	}
	partial, kinds := 0, map[gen.Kind]int{}
	for _, s := range stated {
		o, c := at[s.Origin], at[s.Copy]
		got, ok := byPair[[2]int{o, c}] // origins come first, so A is the origin
		if !ok && s.Inter > 0 {
			t.Errorf("%s of %s: stated resemblance %.4f, oracle reports no shared shingle", s.Copy, s.Origin, s.Resemblance())
			continue
		}
		if got.Resemblance() != s.Resemblance() || got.AinB() != s.BinA() || got.BinA() != s.AinB() {
			t.Errorf("%s (%s) of %s: stated J=%.4f copy⊂origin=%.4f, oracle J=%.4f copy⊂origin=%.4f",
				s.Copy, s.Kind, s.Origin, s.Resemblance(), s.AinB(), got.Resemblance(), got.BinA())
		}
		if r := s.Resemblance(); r > 0 && r < 1 {
			partial++
		}
		kinds[s.Kind]++
		checkKind(t, s)
	}
	// At copy rate 0.3, about 240 of 800 pages are copies, four kinds in eight of which
	// change the text.
	if len(stated) < 160 || partial < 70 {
		t.Errorf("%d copy pairs, %d with resemblance strictly between 0 and 1: too few to test", len(stated), partial)
	}
	for _, k := range gen.AllKinds() {
		if kinds[k] < 15 {
			t.Errorf("only %d %s copies", kinds[k], k)
		}
	}
}

// checkKind checks what a kind promises of the stated overlap (A is the copy, B its
// origin).
func checkKind(t *testing.T, s CopyPair) {
	t.Helper()
	switch s.Kind {
	case gen.Exact, gen.Mirror, gen.Noisy, gen.Plaintext:
		if s.Resemblance() != 1 {
			t.Errorf("%s is %s but its resemblance is %.4f, not 1", s.Copy, s.Kind, s.Resemblance())
		}
	case gen.Quoted: // the whole origin inside a page 2-3 times its size
		if s.BinA() != 1 || s.AinB() > 0.5 || s.AinB() < 0.2 || s.SizeA < 2*s.SizeB {
			t.Errorf("%s quotes %s: origin in copy %.4f (want 1), copy in origin %.4f, sizes %d and %d",
				s.Copy, s.Origin, s.BinA(), s.AinB(), s.SizeA, s.SizeB)
		}
	case gen.Truncated:
		if s.AinB() != 1 {
			t.Errorf("%s is truncated but only %.4f of it is in its origin", s.Copy, s.AinB())
		}
	case gen.Excerpt: // a third of the origin's paragraphs under its title
		if s.AinB() < 0.9 || s.Resemblance() > 0.6 || s.SizeA > s.SizeB*2/3 {
			t.Errorf("%s excerpts %s: copy in origin %.4f (want ≥ 0.9), resemblance %.4f, sizes %d and %d",
				s.Copy, s.Origin, s.AinB(), s.Resemblance(), s.SizeA, s.SizeB)
		}
	}
}

func TestExactUnknownOrigin(t *testing.T) {
	pages := []gen.Page{{ID: "c", Origin: "missing", Kind: gen.Mirror}}
	if _, err := Exact(pages, [][]uint64{nil}); err == nil {
		t.Error("no error for a copy whose origin was not generated")
	}
}

// labelledTruth writes the truth file and reads it back, as dedupstream eval does.
func labelledTruth(t *testing.T, pages []gen.Page) TruthFunc {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTruth(&buf, pages); err != nil {
		t.Fatal(err)
	}
	c, err := quality.ReadClustering(&buf, quality.FormatLabels)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != len(pages) {
		t.Fatalf("truth has %d documents, want %d", c.Len(), len(pages))
	}
	return Labelled(c)
}

// TestFullAgainstOracle: the full method compares exact shingle sets and indexes every
// shingle, so at every threshold its verified pairs must be exactly the oracle's pairs
// of resemblance at least the threshold, and its clusters their components.
func TestFullAgainstOracle(t *testing.T) {
	docs := CleanPages(generate(400, gen.Options{Seed: 3, EditRate: 0.01}))
	truth, err := Natural(docs, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Run(docs, truth, Options{Methods: []string{"full"}, Thresholds: []float64{0.5, 0.8, 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Pairs.Theirs == 0 {
			t.Errorf("threshold %.2f: the oracle found no pairs", r.Threshold)
		}
		if r.Pairs.OnlyOurs != 0 || r.Pairs.OnlyTheirs != 0 || r.Scores.F1 != 1 {
			t.Errorf("threshold %.2f: full differs from the oracle: %+v, cluster F1 %.3f", r.Threshold, r.Pairs, r.Scores.F1)
		}
	}
}

// TestMinHashOnGenerated scores minhash and full against the generator's labels. The
// bounds follow from the generator (offline/lab/gen's package doc) at EditRate 0.01:
// distinct originals share almost no shingles, so a verified pair across two true
// clusters is a sketch error and pair precision must be near 1; exact copies, mirrors,
// reordered and 1%-edited copies (about 4 kinds in 5) have resemblance ≥ 0.8 to their
// origin, truncated ones 0.7–0.9, so at threshold 0.8 about 0.85 of the copies join
// their origin and recall of the cluster metric Re, weighted over all pages (most of
// them singletons, always right), must be well above 0.9; at 0.95 only the exact,
// mirrored copies and the ~half of reordered ones remain, so recall must fall.
func TestMinHashOnGenerated(t *testing.T) {
	pages := generate(600, gen.Options{Seed: 11, EditRate: 0.01})
	docs := CleanPages(pages)
	rows, err := Run(docs, labelledTruth(t, pages), Options{
		Methods: []string{"minhash", "full"}, Thresholds: []float64{0.8, 0.95},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Row{}
	for _, r := range rows {
		got[r.Method+"@"+f2(r.Threshold)] = r
		t.Logf("%s %.2f: pair P %.3f R %.3f; Pr %.3f Re %.3f F1 %.3f CPr %.3f", r.Method, r.Threshold,
			r.Pairs.Precision(), r.Pairs.Recall(), r.Scores.Precision, r.Scores.Recall, r.Scores.F1, r.Scores.CPr)
	}
	for _, k := range []string{"minhash@0.80", "full@0.80"} {
		r := got[k]
		if r.Pairs.Precision() < 0.99 || r.Scores.CPr < 0.99 {
			t.Errorf("%s: pair precision %.3f, CPr %.3f: a pair across distinct originals was verified", k, r.Pairs.Precision(), r.Scores.CPr)
		}
		if r.Scores.Recall < 0.93 || r.Pairs.Recall() < 0.5 {
			t.Errorf("%s: cluster recall %.3f, pair recall %.3f: copies at resemblance ≥ 0.8 were missed", k, r.Scores.Recall, r.Pairs.Recall())
		}
	}
	if a, b := got["full@0.95"].Pairs.Recall(), got["full@0.80"].Pairs.Recall(); a >= b {
		t.Errorf("full: pair recall %.3f at 0.95 is not below %.3f at 0.80", a, b)
	}
	if mh, full := got["minhash@0.80"].Scores.F1, got["full@0.80"].Scores.F1; mh < full-0.03 {
		t.Errorf("minhash cluster F1 %.3f is more than 0.03 below the exact method's %.3f", mh, full)
	}
}

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func TestRunUnknown(t *testing.T) {
	docs := []Doc{{ID: "a", Text: []byte("one two three four five six")}}
	tr := Labelled(mustLabels(t, []string{"a"}))
	if _, err := Run(docs, tr, Options{Methods: []string{"nosuch"}}); err == nil {
		t.Error("no error for an unknown method")
	}
	if _, err := Run(docs, tr, Options{Algorithm: "nosuch"}); err == nil {
		t.Error("no error for an unknown algorithm")
	}
}

func mustLabels(t *testing.T, ids []string) *quality.Clustering {
	c, err := quality.FromLabels(ids, make([]int32, len(ids)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestInput: a page with markup is a record with html, a plain-text page
// one with body, so that the stream cleans it as text.
func TestInput(t *testing.T) {
	f := func(p gen.Page, want prepare.Input) {
		t.Helper()
		if got := Input(p); got != want {
			t.Errorf("Input(%s page) = %+v, want %+v", p.Kind, got, want)
		}
	}
	f(gen.Page{ID: "a", URL: "u", HTML: "<p>x</p>", Kind: gen.Mirror}, prepare.Input{ID: "a", URL: "u", HTML: "<p>x</p>"})
	f(gen.Page{ID: "b", URL: "u", HTML: "x", Kind: gen.Plaintext}, prepare.Input{ID: "b", URL: "u", Body: "x"})
}

func TestPagesRoundTrip(t *testing.T) {
	pages := generate(50, gen.Options{Seed: 5})
	var buf bytes.Buffer
	if err := WritePages(&buf, pages); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPages(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(pages) {
		t.Fatalf("read %d pages, wrote %d", len(got), len(pages))
	}
	for i := range got {
		if got[i] != pages[i] {
			t.Errorf("page %d: read %+v, wrote %+v", i, got[i].ID, pages[i].ID)
		}
	}
	if _, err := ReadPages(bytes.NewBufferString(`{"id":"a","kind":"sideways"}`)); err == nil {
		t.Error("no error for an unknown kind")
	}
}

// TestVerifiedAgainstOracle: minhash verified by full calls a pair near only when
// minhash does and the exact resemblance reaches the threshold, so its verified pairs
// are exactly the true pairs among minhash's: precision 1 against the oracle, and
// recall that of minhash.
func TestVerifiedAgainstOracle(t *testing.T) {
	docs := CleanPages(generate(400, gen.Options{Seed: 3, EditRate: 0.01, Kinds: gen.AllKinds()}))
	truth, err := Natural(docs, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	rejected := int64(0)
	for _, th := range []float64{0.8, 0.9} {
		opts := Options{Methods: []string{"minhash"}, Thresholds: []float64{th}}
		plain, err := Run(docs, truth, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Config.Verify.Method = lsh.MethodFull
		verified, err := Run(docs, truth, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, v := plain[0].Pairs, verified[0].Pairs
		t.Logf("%.2f: minhash %+v; verified by full %+v", th, p, v)
		if v.OnlyOurs != 0 || v.Ours != p.Common || v.Common != p.Common {
			t.Errorf("threshold %.2f: verified by full %+v, want exactly minhash's %d true pairs (minhash %+v)", th, v, p.Common, p)
		}
		rejected += p.OnlyOurs
	}
	if rejected == 0 {
		t.Error("minhash verified no false pair at any threshold: the corpus does not test the verifier")
	}
}

// TestContainAgainstOracle: full compares exact sets and keys every shingle, so its
// contained verdicts are exactly the pairs whose later page is at least c inside the
// earlier one and not near — recall 1, and every pair it calls contained truly is — while
// minhash, which estimates no containment, calls none contained.
func TestContainAgainstOracle(t *testing.T) {
	docs := CleanPages(generate(400, gen.Options{Seed: 3, EditRate: 0.01, Kinds: gen.AllKinds()}))
	truth, err := Natural(docs, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Run(docs, truth, Options{Methods: []string{"full", "minhash"}, Thresholds: []float64{0.8}})
	if err != nil {
		t.Fatal(err)
	}
	full, mh := rows[0].Contain, rows[1].Contain
	t.Logf("full %+v; minhash %+v", full, mh)
	if full.Truth < 20 || full.Found != full.Truth || full.Reported == 0 || full.Good != full.Reported {
		t.Errorf("full: %+v; want every one of ≥ 20 true pairs found and every contained verdict true", full)
	}
	if mh.Reported != 0 || mh.Truth != full.Truth || mh.Found >= full.Found {
		t.Errorf("minhash: %+v; want no contained verdict, and fewer pairs found than full's %d", mh, full.Found)
	}
}
