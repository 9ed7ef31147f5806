package lsh

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// TestConfigYAML checks that a sketch section written for Params alone still
// means the same under Config, and that the method sections parse.
func TestConfigYAML(t *testing.T) {
	const old = "shingle: 4\nnum_perm: 64\nthreshold: 0.7\nseed: 3\n"
	var p Params
	var c Config
	if err := yaml.Unmarshal([]byte(old), &p); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(old), &c); err != nil {
		t.Fatal(err)
	}
	p.EnsureDefaults()
	c.EnsureDefaults()
	if c.Params != p || c.Method != DefaultMethod {
		t.Fatalf("old config under Config: %+v %s, want Params %+v and the default method", c.Params, c.Method, p)
	}
	// The default is oph with 16-bit minima; with method:
	// minhash and bits: 32 an old config's parameters still give the sketch
	// string they always did.
	c.Method, c.Bits = MethodMinHash, 32
	m, err := NewMethod(c, nil)
	if err != nil || m.Version() != p.Version() {
		t.Fatalf("version %v, %v; want %q", m, err, p.Version())
	}
	const full = "method: simhash\nshingle: 3\nshingle_offset: 2\nchar_ngrams: true\n" +
		"simhash: {distance: 5, blocks: 8, words: false}\nmodm: {m: 10}\nbottomk: {keys: 4}\n" +
		"imatch: {select: cf, low: 2, high: 100, min_words: 5}\n"
	c = Config{}
	if err := yaml.Unmarshal([]byte(full), &c); err != nil {
		t.Fatal(err)
	}
	want := Config{Method: MethodSimHash, Params: Params{Shingle: 3}, ShingleOffset: 2, CharNgrams: true,
		SimHash: SimHashParams{Distance: 5, Blocks: 8}, ModM: ModMParams{M: 10}, BottomK: BottomKParams{Keys: 4},
		IMatch: IMatchParams{Select: "cf", Low: 2, High: 100, MinWords: 5}}
	if c != want {
		t.Errorf("parsed %+v\nwant %+v", c, want)
	}
}

// TestContainmentYAML: sketch.containment left out means the default; an
// explicit 0 stays 0 (the contained verdict off) and is valid.
func TestContainmentYAML(t *testing.T) {
	f := func(doc string, want float64) {
		t.Helper()
		var c Config
		if err := yaml.Unmarshal([]byte(doc), &c); err != nil {
			t.Fatal(err)
		}
		c.EnsureDefaults()
		if err := c.Validate(); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
		if got := c.ContainmentThreshold(); got != want {
			t.Errorf("%q: containment %g, want %g", doc, got, want)
		}
	}
	f("method: full\n", DefaultContainment)
	f("method: full\ncontainment: 0\n", 0)
	f("method: full\ncontainment: 0.5\n", 0.5)
	f("method: full\ncontainment: 1\n", 1)
}
