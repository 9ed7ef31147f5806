package lsh

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// testVocabulary counts n random documents of about 3 KB.
func testVocabulary(n int) *vocab.Vocabulary {
	r := rand.New(rand.NewPCG(9, 9))
	var b vocab.Builder
	for range n {
		b.Add(zipfText(r, 3<<10))
	}
	return b.Vocabulary()
}

// zipfText returns normalised text of at least n bytes whose words follow a
// Zipf law over a vocabulary of 5000 words, like real prose: short common
// words and a long tail.
func zipfText(r *rand.Rand, n int) []byte {
	z := rand.NewZipf(r, 1.1, 2, 4999)
	var b []byte
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = appendZipfWord(b, int(z.Uint64()))
	}
	return b
}

// appendZipfWord spells word number i: short for small i.
func appendZipfWord(b []byte, i int) []byte {
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			return b
		}
	}
}

// testMethod builds the method name with c's other fields, failing the test
// on error.
func testMethod(tb testing.TB, name string, c Config, v *vocab.Vocabulary) Method {
	tb.Helper()
	c.Method = name
	c.EnsureDefaults()
	m, err := NewMethod(c, v)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// allMethods returns every method with default parameters (imatch and
// simhash with idf on v).
func allMethods(tb testing.TB, v *vocab.Vocabulary) []Method {
	var ms []Method
	for _, name := range MethodNames() {
		ms = append(ms, testMethod(tb, name, Config{}, v))
	}
	return append(ms, testMethod(tb, MethodSimHash, Config{SimHash: SimHashParams{IDF: true}}, v),
		testMethod(tb, MethodSimHash, Config{SimHash: SimHashParams{TF: SimHashTFLog}}, v),
		testMethod(tb, MethodSimHash, Config{SimHash: SimHashParams{TF: SimHashTFCount}}, v),
		testMethod(tb, MethodMinHash, Config{Verify: VerifyConfig{Method: MethodFull}}, v),
		testMethod(tb, MethodMinHash, Config{Contain: true}, v),
		testMethod(tb, MethodOPH, Config{Contain: true, Verify: VerifyConfig{Method: MethodFull}}, v),
		testMethod(tb, MethodSimHash, Config{Verify: VerifyConfig{Method: MethodBottomK}}, v))
}

func TestMethodVersions(t *testing.T) {
	v := testVocabulary(20)
	f := func(name string, c Config, want string) {
		t.Helper()
		if got := testMethod(t, name, c, v).Version(); got != want {
			t.Errorf("%s %+v: Version %q, want %q", name, c, got, want)
		}
	}
	f(MethodMinHash, Config{}, "minhash128-b10r5-w5-16bit")
	f(MethodMinHash, Config{Bits: 32}, "minhash128-b10r5-w5") // whole minima, the 32-bit sketch string
	f(MethodMinHash, Config{Params: Params{Shingle: 3, NumPerm: 64, Seed: 7}}, "minhash64-b10r5-w3-s7-16bit")
	f(MethodMinHash, Config{ShingleOffset: 2, CharNgrams: true}, "minhash128-b10r5-c5o2-16bit")
	f(MethodOPH, Config{}, "oph128-b10r5-w5-16bit")
	f(MethodOPH, Config{Bits: 32}, "oph128-b10r5-w5")
	f(MethodMinHash, Config{Contain: true}, "minhash128-b10r5-w5-16bit+contain-modm25-n128-l4")
	f(MethodOPH, Config{Contain: true, Params: Params{Seed: 3}}, "oph128-b10r5-w5-s3-16bit+contain-modm25-n128-l4")
	f(MethodBottomK, Config{}, "bottomk128-l3-w5")
	f(MethodBottomK, Config{Params: Params{Threshold: 0.5}}, "bottomk128-l7-w5")
	f(MethodModM, Config{Params: Params{Shingle: 4}}, "modm25-n64-w4")
	f(MethodModM, Config{ModM: ModMParams{M: 8, Min: 16}}, "modm8-n16-w5")
	f(MethodFull, Config{}, "full-w5-k1024")
	f(MethodSuperShingle, Config{}, "supershingle6x14-w5")
	f(MethodSimHash, Config{}, "simhash64-k6b8-w5-tfset")
	f(MethodSimHash, Config{SimHash: SimHashParams{TF: SimHashTFLog}}, "simhash64-k6b8-w5-tflog")
	f(MethodSimHash, Config{SimHash: SimHashParams{TF: SimHashTFCount}}, "simhash64-k6b8-w5") // tf count keeps the string without a tf suffix
	f(MethodSimHash, Config{SimHash: SimHashParams{Distance: 5, Blocks: 8, Words: true}}, "simhash64-k5b8-w1-tfset")
	f(MethodSimHash, Config{SimHash: SimHashParams{IDF: true}}, "simhash64-k6b8-w1-idf"+hex8(v.Digest())+"-tfset")
	f(MethodIMatch, Config{}, "imatch-idf0.2-0.8-m3-v"+hex8(v.Digest()))
	f(MethodIMatch, Config{IMatch: IMatchParams{Select: "cf", Low: 10, High: 500}}, "imatch-cf10-500-m3-v"+hex8(v.Digest()))
}

func hex8(d uint64) string { return string(appendDigest(nil, d)) }

// TestMinHashMethodIsThePipelinePath checks that the minhash Method with
// sketch.bits 32 produces exactly the Sketcher's signature and band keys (the
// sketches of the versions before 16 bits became the default), and with 16
// bits the same signature narrowed to its low 16 bits, keyed after
// narrowing, under its own sketch string.
func TestMinHashMethodIsThePipelinePath(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	for _, p := range []Params{{}, {Shingle: 3, NumPerm: 64, Seed: 9}, {Threshold: 0.5}} {
		for _, bits := range []int{32, 16} {
			c := Config{Params: p, Bits: bits}
			m := testMethod(t, MethodMinHash, c, nil)
			q := p
			q.EnsureDefaults()
			s := NewSketcher(q)
			codec := sigCodec{n: q.NumPerm, bits: bits}
			if want := q.Version() + codec.versionSuffix(); m.Version() != want {
				t.Errorf("Version %q, want %q", m.Version(), want)
			}
			if m.KeyBands() != q.Bands {
				t.Errorf("KeyBands %d, want %d", m.KeyBands(), q.Bands)
			}
			var sc Scratch
			for range 20 {
				text := randomText(r, 100+r.IntN(5000))
				sk, keys := m.Sketch(&sc, text, nil, nil)
				sig := s.Signature(nil, s.Shingles(nil, text))
				codec.narrow(sig)
				if len(sk) != bits/8*q.NumPerm || !slices.Equal(sk, codec.append(nil, sig)) || !slices.Equal(keys, s.BandKeys(nil, sig)) {
					t.Fatalf("%+v, %d bits: Method sketch or keys differ from Sketcher's", q, bits)
				}
				if back, err := KeysOf(m, nil, sk); err != nil || !slices.Equal(back, keys) {
					t.Fatalf("%+v, %d bits: keys read back from the sketch differ (%v)", q, bits, err)
				}
			}
		}
	}
}

func TestMethodContract(t *testing.T) {
	v := testVocabulary(200)
	r := rand.New(rand.NewPCG(3, 2))
	a, b := zipfText(r, 3<<10), zipfText(r, 3<<10)
	for _, m := range allMethods(t, v) {
		var sc Scratch
		prefix := []byte("prefix")
		sa, ka := m.Sketch(&sc, a, slices.Clone(prefix), []uint64{42})
		if !slices.Equal(sa[:len(prefix)], prefix) || ka[0] != 42 {
			t.Fatalf("%s: Sketch does not append", m.Version())
		}
		sa, ka = sa[len(prefix):], ka[1:]
		keep, keepKeys := slices.Clone(sa), slices.Clone(ka)
		sb, kb := m.Sketch(&sc, b, nil, nil)
		if !slices.Equal(sa, keep) || !slices.Equal(ka, keepKeys) {
			t.Fatalf("%s: a second Sketch changed the first's results (aliasing)", m.Version())
		}
		if n := m.KeyBands(); n > 0 && (len(ka) > n || len(kb) > n) {
			t.Errorf("%s: %d and %d keys, KeyBands %d", m.Version(), len(ka), len(kb), n)
		}
		self, err := m.Compare(sa, sa)
		if err != nil || !self.Near || self.Resemblance != 1 {
			t.Errorf("%s: Compare(a, a) = %+v, %v; want near with resemblance 1", m.Version(), self, err)
		}
		other, err := m.Compare(sa, sb)
		// Unrelated SimHash fingerprints differ in 32±4 bits.
		if err != nil || other.Near || other.Resemblance > 0.5 && other.Distance < 0 || other.Distance >= 0 && other.Distance < 16 {
			t.Errorf("%s: Compare(a, b) of unrelated texts = %+v, %v", m.Version(), other, err)
		}
		if _, err := m.Compare(sa, append(slices.Clone(sb), 1)); !errors.Is(err, ErrSketch) {
			t.Errorf("%s: Compare with a sketch one byte too long: %v, want ErrSketch", m.Version(), err)
		}
		t.Logf("%-30s sketch %5d B, %3d keys; unrelated: %+v", m.Version(), len(sa), len(ka), other)
	}
}

// TestMethodEmpty checks that empty text gets a valid sketch and no keys.
func TestMethodEmpty(t *testing.T) {
	for _, m := range allMethods(t, testVocabulary(20)) {
		var sc Scratch
		sk, keys := m.Sketch(&sc, nil, nil, nil)
		if len(keys) != 0 {
			t.Errorf("%s: %d keys for empty text", m.Version(), len(keys))
		}
		if e, err := m.Compare(sk, sk); err != nil || e.Near && m.Name() != MethodSimHash {
			t.Errorf("%s: empty vs empty = %+v, %v", m.Version(), e, err)
		}
	}
}

func TestMethodSketchAllocs(t *testing.T) {
	text := zipfText(rand.New(rand.NewPCG(3, 3)), 3<<10)
	for _, m := range allMethods(t, testVocabulary(50)) {
		var sc Scratch
		sk, keys := m.Sketch(&sc, text, nil, nil)
		allocs := testing.AllocsPerRun(20, func() {
			sk, keys = m.Sketch(&sc, text, sk[:0], keys[:0])
		})
		if allocs != 0 {
			t.Errorf("%s: %.0f allocations per Sketch with reused buffers", m.Version(), allocs)
		}
		if _, err := m.Compare(sk, sk); err != nil {
			t.Fatal(err)
		}
		if allocs := testing.AllocsPerRun(20, func() { _, _ = m.Compare(sk, sk) }); allocs != 0 {
			t.Errorf("%s: %.0f allocations per Compare", m.Version(), allocs)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	f := func(c Config, key string) {
		t.Helper()
		c.EnsureDefaults()
		err := c.Validate()
		if key == "" {
			if err != nil {
				t.Errorf("%+v: %v", c, err)
			}
			return
		}
		if err == nil || !contains(err.Error(), key) {
			t.Errorf("%+v: error %v, want one naming %s", c, err, key)
		}
	}
	for _, name := range MethodNames() {
		f(Config{Method: name}, "")
	}
	f(Config{Method: "lsh"}, "sketch.method")
	f(Config{ShingleOffset: -1}, "sketch.shingle_offset")
	f(Config{Method: MethodBottomK, BottomK: BottomKParams{Keys: 500}}, "sketch.bottomk.keys")
	f(Config{Method: MethodModM, ModM: ModMParams{M: -3}}, "sketch.modm.m")
	f(Config{Method: MethodModM, ModM: ModMParams{Min: -1}}, "sketch.modm.min")
	f(Config{Method: MethodBottomK, Contain: true}, "sketch.contain")
	f(Config{Method: MethodSimHash, Contain: true}, "sketch.contain")
	f(Config{Method: MethodOPH, Contain: true, ModM: ModMParams{Min: -1}}, "") // the sample's parameters are fixed
	f(Config{Method: MethodSuperShingle, Params: Params{Bands: 6, Rows: 14, NumPerm: 128}}, "sketch.bands")
	f(Config{Method: MethodSimHash, SimHash: SimHashParams{Distance: 64}}, "sketch.simhash.distance")
	f(Config{Method: MethodSimHash, SimHash: SimHashParams{Distance: 5, Blocks: 5}}, "sketch.simhash.blocks")
	f(Config{Method: MethodSimHash, SimHash: SimHashParams{Distance: 10, Blocks: 20}}, "sketch.simhash.blocks")
	f(Config{Method: MethodSimHash, SimHash: SimHashParams{TF: "tfidf"}}, "sketch.simhash.tf")
	f(Config{Method: MethodIMatch, IMatch: IMatchParams{Select: "tf"}}, "sketch.imatch.select")
	f(Config{Method: MethodIMatch, IMatch: IMatchParams{Low: 0.9, High: 0.1}}, "sketch.imatch.low")
	f(Config{Method: MethodIMatch, IMatch: IMatchParams{Select: "cf"}}, "sketch.imatch.high")
	f(Config{Params: Params{Shingle: 65}}, "sketch.shingle")

	c := Config{Method: MethodIMatch}
	c.EnsureDefaults()
	if _, err := NewMethod(c, nil); err == nil {
		t.Error("imatch without a vocabulary: no error")
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}
