package lsh

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func newTestRecordMethod(t *testing.T, rc RecordConfig) *RecordMethod {
	t.Helper()
	rc.Enabled = true
	rc.EnsureDefaults()
	var sc Config
	sc.EnsureDefaults()
	m, err := NewRecordMethod(rc, sc)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// recordText joins normalised fields; authors are given with "|" between keys.
func recordText(fields ...string) []byte {
	for i, f := range fields {
		fields[i] = strings.ReplaceAll(f, "|", string(rune(RecordItemSep)))
	}
	return []byte(strings.Join(fields, string(rune(RecordFieldSep))))
}

func compareTexts(t *testing.T, m *RecordMethod, a, b []byte) RecordComparison {
	t.Helper()
	var sc Scratch
	sa, _ := m.Sketch(&sc, a, nil, nil)
	sb, _ := m.Sketch(&sc, b, nil, nil)
	c, err := m.CompareFields(sa, sb)
	if err != nil {
		t.Fatal(err)
	}
	est, _ := m.Compare(sa, sb)
	if est.Resemblance != c.Similarity || est.Near != c.Near {
		t.Fatalf("Compare %+v and CompareFields %+v disagree", est, c)
	}
	return c
}

const (
	titleA    = "a streaming filter for near duplicate documents in kafka pipelines"
	titleB    = "closed itemsets as clusters of similar web pages"
	abstractA = "we describe a filter that reads every page decides whether an earlier page is a near copy and writes it tagged"
)

func TestRecordWeightedSimilarity(t *testing.T) {
	m := newTestRecordMethod(t, RecordConfig{})
	// Fields: title (3), authors (3), abstract (2), year (1).
	f := func(name string, a, b []byte, wantSim float64, tol float64, wantNear bool, wantComparable int) {
		t.Helper()
		c := compareTexts(t, m, a, b)
		if math.Abs(c.Similarity-wantSim) > tol || c.Near != wantNear || c.Comparable != wantComparable {
			t.Errorf("%s: similarity %.3f near %v comparable %d; want %.3f±%.2f, %v, %d (%+v)",
				name, c.Similarity, c.Near, c.Comparable, wantSim, tol, wantNear, wantComparable, c.Fields)
		}
	}
	full := recordText(titleA, "smith j|doe a", abstractA, "2001")
	f("identical", full, full, 1, 0, true, 4)
	f("authors reordered", full, recordText(titleA, "doe a|smith j", abstractA, "2001"), 1, 0, true, 4)
	// A missing abstract is left out of both sums: (3+3+1)/7.
	f("abstract missing", full, recordText(titleA, "smith j|doe a", "", "2001"), 1, 0, true, 3)
	// Same title, other authors and year, no abstract: 3·1/(3+3+1).
	f("same title only", full, recordText(titleA, "brown k", "", "1987"), 3.0/7, 0, false, 3)
	// Other year only: (3+3+2)/9.
	f("other year", full, recordText(titleA, "smith j|doe a", abstractA, "2002"), 8.0/9, 0, true, 4)
	// One author of two shared: authors J = 1/3, estimated from 32 values.
	f("half the authors", full, recordText(titleA, "smith j|brown k", abstractA, "2001"), (3+3.0/3+2+1)/9, 0.07, false, 4)
	f("different", full, recordText(titleB, "brown k", "", "1987"), 0, 0.1, false, 3)
}

func TestRecordMissingFieldsNotEqual(t *testing.T) {
	m := newTestRecordMethod(t, RecordConfig{})
	// Two records that share only a title: one comparable field, below
	// min_fields 2, so not near even though that field is identical and the
	// others are missing on one side or both.
	c := compareTexts(t, m, recordText(titleA, "", "", ""), recordText(titleA, "smith j", "", ""))
	if c.Near || c.Comparable != 1 || c.Similarity != 1 {
		t.Errorf("title-only pair: %+v; want 1 comparable field, similarity 1, not near", c)
	}
	m1 := newTestRecordMethod(t, RecordConfig{MinFields: 1})
	if c := compareTexts(t, m1, recordText(titleA), recordText(titleA, "smith j")); !c.Near {
		t.Errorf("min_fields 1: title-only pair not near: %+v", c)
	}
	// Both empty in every field: nothing comparable, similarity 0.
	if c := compareTexts(t, m1, nil, nil); c.Near || c.Comparable != 0 || c.Similarity != 0 {
		t.Errorf("empty records: %+v", c)
	}
	if c := compareTexts(t, m, recordText("", "|", "", ""), recordText("", "|", "", "")); c.Fields[1].InA {
		t.Errorf("authors of separators only counted as present: %+v", c.Fields[1])
	}
}

func TestRecordFieldTags(t *testing.T) {
	// The same words as title in one record and as abstract in the other
	// share no shingle and no key.
	m := newTestRecordMethod(t, RecordConfig{MinFields: 1, Fields: []RecordField{
		{Name: "title", Kind: KindText}, {Name: "abstract", Kind: KindText},
	}})
	var sc Scratch
	a, ka := m.Sketch(&sc, recordText(titleA, ""), nil, nil)
	b, kb := m.Sketch(&sc, recordText("", titleA), nil, nil)
	for _, x := range ka {
		for _, y := range kb {
			if x == y {
				t.Fatalf("title and abstract share key %x", x)
			}
		}
	}
	if est, _ := m.Compare(a, b); est.Near || est.Resemblance != 0 {
		t.Errorf("title vs abstract: %+v", est)
	}
	if len(ka) != len(kb) || len(ka) == 0 {
		t.Errorf("keys: %d and %d", len(ka), len(kb))
	}
}

func TestRecordKeys(t *testing.T) {
	m := newTestRecordMethod(t, RecordConfig{Fields: []RecordField{
		{Name: "title"}, {Name: "doi", Kind: KindExact}, {Name: "year", Kind: KindYear},
	}})
	p := m.s.Params()
	var sc Scratch
	_, keys := m.Sketch(&sc, recordText("some title words here", "10.1000/182", "2001"), nil, nil)
	if want := p.Bands + 1; len(keys) != want { // title bands, one doi key, none for the year
		t.Errorf("%d keys, want %d (bands %d)", len(keys), want, p.Bands)
	}
	_, keys = m.Sketch(&sc, recordText("", "", "2001"), nil, nil)
	if len(keys) != 0 {
		t.Errorf("a year alone gave %d keys", len(keys))
	}
}

func TestRecordVersionAndErrors(t *testing.T) {
	m := newTestRecordMethod(t, RecordConfig{})
	if got, want := m.Version(), "record32-b8r4-title:text.c4,authors:authors,abstract:text.w3,year:year"; got != want {
		t.Errorf("Version = %q, want %q", got, want)
	}
	m2 := newTestRecordMethod(t, RecordConfig{Fields: []RecordField{{Name: "title", Path: "meta.title"}, {Name: "year", Kind: KindYear}}})
	if got, want := m2.Version(), "record32-b8r4-title@meta.title:text.w3,year:year"; got != want {
		t.Errorf("Version = %q, want %q", got, want)
	}
	var sc Scratch
	a, _ := m.Sketch(&sc, recordText(titleA), nil, nil)
	b, _ := m2.Sketch(&sc, recordText(titleA), nil, nil)
	if _, err := m.Compare(a, b); !errors.Is(err, ErrSketch) {
		t.Errorf("Compare of sketches of two configurations: %v", err)
	}
	bad := append([]byte(nil), a...)
	bad[1] = 0xff // marks field 8..15 present
	if _, err := m.Compare(a, bad); !errors.Is(err, ErrSketch) {
		t.Errorf("Compare with stray presence bits: %v", err)
	}
}

func TestRecordConfigValidate(t *testing.T) {
	f := func(rc RecordConfig, want string) {
		t.Helper()
		rc.EnsureDefaults()
		err := rc.Validate()
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Validate(%+v) = %v, want %q", rc, err, want)
		}
	}
	f(RecordConfig{}, "")
	f(RecordConfig{MinFields: 5}, "record.min_fields")
	f(RecordConfig{Fields: []RecordField{{Name: "a"}, {Name: "a"}}}, `record.fields[1].name: "a" is used twice`)
	f(RecordConfig{Fields: []RecordField{{Name: "a", Kind: "date"}}, MinFields: 1}, "record.fields[0].kind")
	f(RecordConfig{Fields: []RecordField{{Name: "a", Weight: -1}}, MinFields: 1}, "weight")
	f(RecordConfig{Fields: []RecordField{{Name: "y", Kind: KindYear, Shingle: RecordShingle{Length: 2}}}, MinFields: 1}, "shingle")
	f(RecordConfig{Fields: []RecordField{{Kind: KindYear}}, MinFields: 1}, "name")
	f(RecordConfig{NumPerm: 5000}, "record.num_perm")
}
