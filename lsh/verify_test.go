package lsh

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"
)

// verifyStory is a hand-written news story of 243 words, normalised.
func verifyStory(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/verify_story.txt")
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

// editWords replaces every step-th word of text, from the first, with a
// word of its own, n times.
func editWords(text []byte, n, step int) []byte {
	words := bytes.Fields(text)
	out := make([][]byte, len(words))
	copy(out, words)
	for i := range n {
		out[(i*step+step/2)%len(words)] = []byte("edited" + string(rune('a'+i)))
	}
	return bytes.Join(out, []byte(" "))
}

func exactResemblance(c Config, a, b []byte) float64 {
	c.EnsureDefaults()
	sh := c.Shingling()
	return OverlapOf(SortedSet(sh.Append(nil, a)), SortedSet(sh.Append(nil, b))).Resemblance()
}

func TestVerifyVersion(t *testing.T) {
	f := func(c Config, want string) {
		t.Helper()
		if got := testMethod(t, c.Method, c, nil).Version(); got != want {
			t.Errorf("%+v: Version %q, want %q", c.Verify, got, want)
		}
	}
	f(Config{Method: MethodMinHash}, "minhash128-b10r5-w5-16bit")
	f(Config{Method: MethodMinHash, Verify: VerifyConfig{Method: VerifyNone}}, "minhash128-b10r5-w5-16bit")
	f(Config{Method: MethodMinHash, Verify: VerifyConfig{Method: MethodFull}}, "minhash128-b10r5-w5-16bit+verify-full-w5-k1024")
	f(Config{Method: MethodMinHash, Verify: VerifyConfig{Method: MethodBottomK, NumPerm: 256}},
		"minhash128-b10r5-w5-16bit+verify-bottomk256-l1-w5")
	f(Config{Method: MethodOPH, Verify: VerifyConfig{Method: MethodMinHash, NumPerm: 256}},
		"oph128-b10r5-w5-16bit+verify-minhash256-b1r256-w5-16bit")
	// The verify threshold changes verdicts, not sketches.
	f(Config{Method: MethodMinHash, Verify: VerifyConfig{Method: MethodFull, Threshold: 0.9}}, "minhash128-b10r5-w5-16bit+verify-full-w5-k1024")
	f(Config{Method: MethodMinHash, Verify: VerifyConfig{Method: MethodBottomK, NumPerm: 256, Threshold: 0.5}},
		"minhash128-b10r5-w5-16bit+verify-bottomk256-l1-w5")
	f(Config{Method: MethodOPH, Verify: VerifyConfig{Method: MethodMinHash, NumPerm: 256, Threshold: 0.95}},
		"oph128-b10r5-w5-16bit+verify-minhash256-b1r256-w5-16bit")
	f(Config{Method: MethodSimHash, Params: Params{Seed: 7}, Verify: VerifyConfig{Method: MethodModM}}, "simhash64-k6b8-w5-tfset-s7+verify-modm25-n64-w5-s7")
}

func TestVerifyConfigValidate(t *testing.T) {
	f := func(v VerifyConfig, key string) {
		t.Helper()
		c := Config{Verify: v}
		c.EnsureDefaults()
		err := c.Validate()
		if key == "" {
			if err != nil {
				t.Errorf("%+v: %v", v, err)
			}
			return
		}
		if err == nil || !contains(err.Error(), key) {
			t.Errorf("%+v: error %v, want one naming %s", v, err, key)
		}
	}
	f(VerifyConfig{}, "")
	for _, name := range VerifyMethodNames() {
		f(VerifyConfig{Method: name}, "")
	}
	f(VerifyConfig{Method: MethodSimHash}, "sketch.verify.method")
	f(VerifyConfig{Method: MethodIMatch}, "sketch.verify.method")
	f(VerifyConfig{Method: "exact"}, "sketch.verify.method")
	f(VerifyConfig{Method: MethodFull, Threshold: 1}, "sketch.verify.threshold")
	f(VerifyConfig{Method: MethodFull, Threshold: -0.5}, "sketch.verify.threshold")
	f(VerifyConfig{Method: MethodBottomK, NumPerm: MaxNumPerm + 1}, "sketch.verify.num_perm")
	f(VerifyConfig{Method: MethodBottomK, NumPerm: 256, Threshold: 0.9}, "")
}

// TestVerifyRoundTrip checks that a verified sketch holds both methods'
// sketches, that its keys are the finder's, and that the offline readers
// unwrap it: keys from the finder, fingerprints from the verifier.
func TestVerifyRoundTrip(t *testing.T) {
	text := verifyStory(t)
	c := Config{Method: MethodMinHash, Verify: VerifyConfig{Method: MethodFull}}
	m := testMethod(t, MethodMinHash, c, nil)
	finder, verifier := testMethod(t, MethodMinHash, Config{}, nil), testMethod(t, MethodFull, Config{}, nil)
	var sc Scratch
	sk, keys := m.Sketch(&sc, text, []byte("pre"), []uint64{7})
	fsk, fkeys := finder.Sketch(&Scratch{}, text, nil, nil)
	vsk, _ := verifier.Sketch(&Scratch{}, text, nil, nil)
	f, v, err := splitTwo(sk[3:])
	if err != nil || string(sk[:3]) != "pre" || !bytes.Equal(f, fsk) || !bytes.Equal(v, vsk) {
		t.Fatalf("sketch is not prefix + finder's + verifier's: %v", err)
	}
	if keys[0] != 7 || !slices.Equal(keys[1:], fkeys) || m.KeyBands() != finder.KeyBands() {
		t.Fatalf("keys %d (KeyBands %d), want the finder's %d (%d)", len(keys)-1, m.KeyBands(), len(fkeys), finder.KeyBands())
	}
	if got, err := KeysOf(m, nil, sk[3:]); err != nil || !slices.Equal(got, fkeys) {
		t.Errorf("KeysOf = %d keys, %v; want the finder's %d", len(got), err, len(fkeys))
	}
	want, _ := Fingerprints(verifier, nil, vsk)
	if got, err := Fingerprints(m, nil, sk[3:]); err != nil || !slices.Equal(got, want) {
		t.Errorf("Fingerprints = %d values, %v; want the verifier's %d", len(got), err, len(want))
	}
	for _, bad := range [][]byte{nil, {1, 0}, {200, 0, 0, 0, 1}} {
		if _, err := m.Compare(bad, sk[3:]); !errors.Is(err, ErrSketch) {
			t.Errorf("Compare(%v, ok) = %v, want ErrSketch", bad, err)
		}
	}
}

// TestVerifySketchIsBoth checks, for every finder and verifier, with and
// without stemming, that the verified sketch is the finder's and the
// verifier's own sketches of the text, whether the verifier reuses the
// finder's shingles or shingles the text itself.
func TestVerifySketchIsBoth(t *testing.T) {
	text := verifyStory(t)
	vocab := testVocabulary(20)
	var sc Scratch
	for _, finder := range MethodNames() {
		for _, verifier := range VerifyMethodNames() {
			for _, stem := range []string{"none", "en"} {
				c := Config{Stem: stem, Verify: VerifyConfig{Method: verifier}}
				if finder == MethodIMatch {
					c.Stem = "none"
				}
				m := testMethod(t, finder, c, vocab).(*verifyMethod)
				sk, keys := m.Sketch(&sc, text, nil, nil)
				fsk, fkeys := m.finder.Sketch(&Scratch{}, text, nil, nil)
				vsk, _ := m.verifier.Sketch(&Scratch{}, text, nil, nil)
				f, v, err := splitTwo(sk)
				if err != nil || !bytes.Equal(f, fsk) || !bytes.Equal(v, vsk) || !slices.Equal(keys, fkeys) {
					t.Errorf("%s (reuse %v): sketch or keys are not the finder's and the verifier's: %v", m.Version(), m.reuse != nil, err)
				}
			}
		}
	}
}

// TestVerifyRejects edits a real story until its exact resemblance falls
// below 0.9: minhash at 0.8 still calls the copy near, but a full verifier
// (exact) or a bottom-256 one at 0.9 rejects it; a lighter edit passes both.
func TestVerifyRejects(t *testing.T) {
	story := verifyStory(t)
	plain := testMethod(t, MethodMinHash, Config{}, nil)
	full := testMethod(t, MethodMinHash, Config{Verify: VerifyConfig{Method: MethodFull, Threshold: 0.9}}, nil)
	bottomk := testMethod(t, MethodMinHash, Config{Verify: VerifyConfig{Method: MethodBottomK, NumPerm: 256, Threshold: 0.9}}, nil)
	var sc Scratch
	compare := func(m Method, a, b []byte) Estimate {
		t.Helper()
		sa, _ := m.Sketch(&sc, a, nil, nil)
		sb, _ := m.Sketch(&sc, b, nil, nil)
		e, err := m.Compare(sa, sb)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	light, heavy := editWords(story, 1, 40), editWords(story, 3, 40)
	jl, jh := exactResemblance(Config{}, story, light), exactResemblance(Config{}, story, heavy)
	if !(jl >= 0.9 && jh >= 0.8 && jh < 0.9) {
		t.Fatalf("exact resemblance %.3f (1 edit) and %.3f (3 edits), want >= 0.9 and in [0.8, 0.9)", jl, jh)
	}
	ep := compare(plain, story, heavy)
	if !ep.Near {
		t.Fatalf("minhash estimate %.3f of a pair at J %.3f is not near at 0.8", ep.Resemblance, jh)
	}
	ef := compare(full, story, heavy)
	if ef.Near || ef.Resemblance != jh {
		t.Errorf("verified by full: %+v, want not near with the exact resemblance %.3f", ef, jh)
	}
	if eb := compare(bottomk, story, heavy); eb.Near {
		t.Errorf("verified by bottom-256 at 0.9: %+v, want not near (J %.3f)", eb, jh)
	}
	if e := compare(full, story, light); !e.Near || e.Resemblance != jl {
		t.Errorf("one edit, verified by full: %+v, want near with resemblance %.3f", e, jl)
	}
	if e := compare(bottomk, story, light); !e.Near {
		t.Errorf("one edit, verified by bottom-256: %+v, want near (J %.3f)", e, jl)
	}
	t.Logf("J %.3f: minhash %.3f, full %.3f, bottom-256 %.3f", jh, ep.Resemblance, ef.Resemblance, compare(bottomk, story, heavy).Resemblance)
}

// TestVerifyNeedsTheFinder checks the AND: a verifier alone near is not
// enough when the finder says no.
func TestVerifyNeedsTheFinder(t *testing.T) {
	story := verifyStory(t)
	// Threshold 0.95 for the finder, 0.5 for the verifier: a pair at J ≈ 0.88
	// is near by the verifier only.
	m := testMethod(t, MethodMinHash, Config{Params: Params{Threshold: 0.95}, Verify: VerifyConfig{Method: MethodFull, Threshold: 0.5}}, nil)
	var sc Scratch
	sa, _ := m.Sketch(&sc, story, nil, nil)
	sb, _ := m.Sketch(&sc, editWords(story, 3, 40), nil, nil)
	e, err := m.Compare(sa, sb)
	if err != nil || e.Near || e.Resemblance < 0.8 {
		t.Errorf("Compare = %+v, %v; want not near, resemblance >= 0.8", e, err)
	}
}

// TestVerifyContainment checks that verification never adds a contained
// verdict: containment is the finder's, lowered to the verifier's estimate
// when that is smaller.
func TestVerifyContainment(t *testing.T) {
	story := verifyStory(t)
	quote := bytes.Join(bytes.Fields(story)[:120], []byte(" ")) // half the story: exact AinB = 1
	var sc Scratch
	compare := func(m Method) Estimate {
		t.Helper()
		sa, _ := m.Sketch(&sc, quote, nil, nil)
		sb, _ := m.Sketch(&sc, story, nil, nil)
		e, err := m.Compare(sa, sb)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if e := compare(testMethod(t, MethodMinHash, Config{Verify: VerifyConfig{Method: MethodFull}}, nil)); e.Containment || e.AinB != 0 {
		t.Errorf("minhash verified by full: %+v, want no containment (minhash estimates none)", e)
	}
	var c Config
	c.EnsureDefaults()
	sh := c.Shingling()
	exact := OverlapOf(SortedSet(sh.Append(nil, quote)), SortedSet(sh.Append(nil, story)))
	bk := compare(testMethod(t, MethodBottomK, Config{Params: Params{NumPerm: 32}}, nil))
	e := compare(testMethod(t, MethodBottomK, Config{Params: Params{NumPerm: 32}, Verify: VerifyConfig{Method: MethodFull}}, nil))
	if !e.Containment || e.AinB != min(bk.AinB, exact.AinB()) || e.BinA != min(bk.BinA, exact.BinA()) || e.Resemblance != exact.Resemblance() {
		t.Errorf("bottom-32 verified by full: %+v; bottom-32 alone %+v, exact AinB %.3f BinA %.3f J %.3f",
			e, bk, exact.AinB(), exact.BinA(), exact.Resemblance())
	}
}
