package lsh

import (
	"fmt"
	"math"
	"slices"

	"github.com/dedupstream/dedupstream/lsh/clean"
	"github.com/dedupstream/dedupstream/lsh/vocab"
)

// Config chooses a Method and its parameters. Params is inlined in YAML, so a
// configuration written for the MinHash-only version (shingle, num_perm,
// threshold, bands, rows, fp_weight, fn_weight, seed) keeps its meaning.
// The zero value of every field means "use the default"; call
// EnsureDefaults and then Validate before NewMethod.
//
// Which fields each method reads:
//
//	minhash       shingling, num_perm, bands, rows (or max_bands, fp_weight, fn_weight), seed, threshold, contain
//	oph           shingling, num_perm (bins), bands, rows (or max_bands, fp_weight, fn_weight), seed, threshold, contain
//	bottomk       shingling, num_perm (k), bottomk.keys, seed, threshold
//	modm          shingling, modm.m, modm.min, seed, threshold
//	full          shingling, full.max_keys, threshold
//	supershingle  shingling, bands (super-shingles, 6), rows (minima each, 14), seed
//	simhash       shingling, simhash.*, seed
//	imatch        imatch.*
type Config struct {
	Method        string `yaml:"method"` // one of MethodNames; "" → oph (DefaultMethod)
	Params        Params `yaml:",inline"`
	ShingleOffset int    `yaml:"shingle_offset"` // keep every n-th window; 0 → 1
	CharNgrams    bool   `yaml:"char_ngrams"`    // shingles are n-grams of `shingle` runes
	// StopWords and Stem name the languages whose Snowball stop words are
	// dropped and whose words are stemmed before shingling: none, en, ru,
	// en+ru or auto (= en+ru: each word by its script); "" → none. See
	// Shingling and clean.Langs.
	StopWords string `yaml:"stopwords"`
	Stem      string `yaml:"stem"`
	// Containment is the least estimated containment of a document in an
	// earlier one (Estimate.AinB) that makes it "contained" in it, for the
	// methods whose Compare estimates containment (bottomk, modm, full);
	// 0 turns the verdict off. A pointer, so that an explicit 0 differs from
	// the key left out: nil → 0.9. Read it with ContainmentThreshold. Like
	// Threshold it changes verdicts, not sketches.
	Containment *float64 `yaml:"containment"`
	// Contain gives minhash and oph the contained verdict: each page also
	// stores a floored mod-m sample of its shingles (m = 25, min = 128)
	// whose keys join the method's, and Compare estimates containment from
	// it (see containMethod). Off by default: it adds bytes and keys per
	// page. The other set methods estimate containment themselves.
	Contain bool `yaml:"contain"`
	// Bits is how many low bits of each minimum minhash and oph keep in their
	// signature: 16 (b-bit minwise hashing: half the bytes, the estimate
	// corrected for chance agreements) or 32 (whole minima, the sketches of
	// earlier versions); 0 → DefaultBits. Other methods ignore it.
	Bits int `yaml:"bits"`

	BottomK BottomKParams `yaml:"bottomk"`
	ModM    ModMParams    `yaml:"modm"`
	Full    FullParams    `yaml:"full"`
	SimHash SimHashParams `yaml:"simhash"`
	IMatch  IMatchParams  `yaml:"imatch"`
	// Verify adds a second sketch that must confirm each candidate (see
	// VerifyConfig); its method is none by default.
	Verify VerifyConfig `yaml:"verify"`
}

// BottomKParams configures the bottomk method; its k is Params.NumPerm.
type BottomKParams struct {
	// Keys is how many of the smallest values are index keys; 0 → the
	// smallest L with 1−(1−threshold)^L ≥ 0.99, a lower bound on the chance
	// that a pair at the threshold becomes a candidate (see BottomK).
	Keys int `yaml:"keys"`
}

// ModMParams configures the modm method.
type ModMParams struct {
	M int `yaml:"m"` // keep fingerprints ≡ 0 (mod M); 0 → 25
	// Min is the floor of the sample: a page with fewer than Min
	// fingerprints ≡ 0 (mod M) keeps its Min smallest as well, and a
	// containment is estimated only from at least Min/4 sampled
	// fingerprints of the contained page (see ModM); 0 → 64.
	Min int `yaml:"min"`
}

// FullParams configures the full method.
type FullParams struct {
	// MaxKeys bounds the index keys of one document: one with more distinct
	// shingles is keyed by its MaxKeys smallest fingerprints (see the full
	// method); 0 → 1024.
	MaxKeys int `yaml:"max_keys"`
}

// SimHashParams configures the simhash method.
type SimHashParams struct {
	Distance int  `yaml:"distance"` // Hamming distance still "near"; 0 → 6
	Blocks   int  `yaml:"blocks"`   // fingerprint blocks for the tables; 0 → the fewest with ≥ 16-bit keys (8 at distance 6)
	Words    bool `yaml:"words"`    // features are words, not shingles (pair with idf: by tf alone the commonest words set most bits)
	IDF      bool `yaml:"idf"`      // weight words by idf (implies words; needs a Vocabulary)
	// TF is how a feature's occurrences in one document weigh: "set" (once,
	// however often it occurs), "log" (1 + ln tf, at most 4) or "count" (tf:
	// under which one shingle repeated a few
	// hundred times — a quoted-printable "=3D=3D…" run — decides every bit;
	// kept only to open a state written with it). "" → "set". See
	// simHashMethod.
	TF string `yaml:"tf"`
}

// Weightings of simhash features, the values of SimHashParams.TF.
const (
	SimHashTFSet   = "set"
	SimHashTFLog   = "log"
	SimHashTFCount = "count"
)

// IMatchParams configures the imatch method.
type IMatchParams struct {
	// Select is "idf" (keep words whose normalised idf, ln(N/df)/ln(N), lies
	// in [Low, High]) or "cf" (keep words whose collection frequency, total
	// occurrences in the Vocabulary's documents, lies in [Low, High]).
	// "" → "idf".
	Select string `yaml:"select"`
	// Low and High bound the interval; both 0 → [0.2, 0.8] for idf. For cf
	// High must be set.
	Low  float64 `yaml:"low"`
	High float64 `yaml:"high"`
	// MinWords is the fewest selected words a document needs to get a
	// signature (and a key); 0 → 3. Fewer would make every short page with
	// the same two mid-frequency words a duplicate of every other.
	MinWords int `yaml:"min_words"`
}

// Defaults of the method parameters.
const (
	DefaultMethod           = MethodOPH
	DefaultBits             = 16
	DefaultContainment      = 0.9
	DefaultModM             = 25
	DefaultModMMin          = 64
	DefaultFullKeys         = 1024
	DefaultSimDistance      = 6
	DefaultIMatchLow        = 0.2
	DefaultIMatchHigh       = 0.8
	DefaultIMatchWords      = 3
	DefaultSuperShingles    = 6  // Fetterly's super-shingles per document
	DefaultSuperShingleRows = 14 // minima per super-shingle
)

// MaxKeyBands bounds the keys per document of a method with positional
// keys (simhash tables, supershingle pairs): the state's limit on bands.
const MaxKeyBands = 256

// EnsureDefaults replaces zero fields with their defaults.
func (c *Config) EnsureDefaults() {
	if c.Method == "" {
		c.Method = DefaultMethod
	}
	if c.Method == MethodSuperShingle && c.Params.Bands == 0 && c.Params.Rows == 0 {
		c.Params.Bands, c.Params.Rows = DefaultSuperShingles, DefaultSuperShingleRows
	}
	if c.Method == MethodSuperShingle && c.Params.NumPerm == 0 && c.Params.Bands > 0 && c.Params.Rows > 0 {
		c.Params.NumPerm = c.Params.Bands * c.Params.Rows
	}
	c.Params.EnsureDefaults()
	if c.Bits == 0 {
		c.Bits = DefaultBits
	}
	if c.ShingleOffset == 0 {
		c.ShingleOffset = 1
	}
	if c.StopWords == "" {
		c.StopWords = "none"
	}
	if c.Stem == "" {
		c.Stem = "none"
	}
	if c.Containment == nil {
		c.Containment = new(float64(DefaultContainment))
	}
	if c.BottomK.Keys == 0 && c.Params.Threshold > 0 && c.Params.Threshold < 1 {
		c.BottomK.Keys = bottomKKeys(c.Params.Threshold, c.Params.NumPerm)
	}
	if c.ModM.M == 0 {
		c.ModM.M = DefaultModM
	}
	if c.ModM.Min == 0 {
		c.ModM.Min = DefaultModMMin
	}
	if c.Full.MaxKeys == 0 {
		c.Full.MaxKeys = DefaultFullKeys
	}
	c.SimHash.ensureDefaults()
	c.IMatch.ensureDefaults()
	c.Verify.ensureDefaults()
}

// ContainmentThreshold is the least estimated containment that makes a
// document "contained" in an earlier one: Containment, DefaultContainment
// if that is nil, and 0 when the verdict is off (as stream.Deps.Containment
// takes it).
func (c Config) ContainmentThreshold() float64 {
	if c.Containment == nil {
		return DefaultContainment
	}
	return *c.Containment
}

// bottomKKeys is the smallest L ≤ k with 1−(1−t)^L ≥ 0.99.
func bottomKKeys(t float64, k int) int {
	l := int(math.Ceil(math.Log(0.01) / math.Log(1-t)))
	return max(1, min(l, k))
}

func (s *SimHashParams) ensureDefaults() {
	if s.Distance == 0 {
		s.Distance = DefaultSimDistance
	}
	if s.Blocks == 0 {
		s.Blocks = simHashBlocks(s.Distance)
	}
	if s.IDF {
		s.Words = true
	}
	if s.TF == "" {
		s.TF = SimHashTFSet
	}
}

// simHashBlocks is the default number of blocks at distance d: the fewest
// whose table keys keep at least 16 of the 64 bits (64·(b−d)/b ≥ 16, so
// b ≥ 4d/3; a random fingerprint shares a key with probability ≤ 2^−16 per
// table), but at least d+1 and with at most MaxKeyBands tables. d = 3 gives
// the pigeonhole 4 blocks; d = 6 gives 8 blocks, 28 tables of 16 bits.
func simHashBlocks(d int) int {
	b := max(d+1, (4*d+2)/3)
	for b > d+1 && SimHashTables(d, b) > MaxKeyBands {
		b--
	}
	return b
}

func (m *IMatchParams) ensureDefaults() {
	if m.Select == "" {
		m.Select = "idf"
	}
	if m.Select == "idf" && m.Low == 0 && m.High == 0 {
		m.Low, m.High = DefaultIMatchLow, DefaultIMatchHigh
	}
	if m.MinWords == 0 {
		m.MinWords = DefaultIMatchWords
	}
}

// ForMethod is the configuration of method name beside c, as compare sets
// every method against the configured one: c itself for c.Method, else c's
// shingling (stop words and stemming too), threshold, seed and method
// sections with name's defaults for the rest. A method that looks words up
// in a Vocabulary of unstemmed words (imatch, simhash with idf) gets no stop
// words or stemming, as Validate requires. c must be defaulted.
func (c Config) ForMethod(name string) Config {
	if name == c.Method {
		return c
	}
	o := Config{
		Method: name, ShingleOffset: c.ShingleOffset, CharNgrams: c.CharNgrams, Containment: c.Containment,
		StopWords: c.StopWords, Stem: c.Stem,
		Params: Params{Shingle: c.Params.Shingle, Threshold: c.Params.Threshold, Seed: c.Params.Seed},
		ModM:   c.ModM, SimHash: c.SimHash, IMatch: c.IMatch,
	}
	if o.readsVocabulary() {
		o.StopWords, o.Stem = "", ""
	}
	o.EnsureDefaults()
	return o
}

// readsVocabulary reports whether c's method looks words up in a Vocabulary
// of unstemmed words: imatch, and simhash with idf.
func (c Config) readsVocabulary() bool {
	return c.Method == MethodIMatch || c.Method == MethodSimHash && c.SimHash.IDF
}

// Shingling returns the shingling the Config describes. Invalid language
// values (which Validate reports) count as none.
func (c Config) Shingling() Shingling {
	stop, _ := clean.ParseLangs("sketch.stopwords", c.StopWords)
	stem, _ := clean.ParseLangs("sketch.stem", c.Stem)
	return Shingling{Length: c.Params.Shingle, Offset: c.ShingleOffset, Chars: c.CharNgrams,
		StopWords: stop, Stem: stem}
}

// validateWords checks sketch.stopwords and sketch.stem, and that the
// method reads shingles: imatch and simhash with idf look words up in a
// Vocabulary of unstemmed words.
func (c Config) validateWords() error {
	stop, err := clean.ParseLangs("sketch.stopwords", c.StopWords)
	if err != nil {
		return err
	}
	stem, err := clean.ParseLangs("sketch.stem", c.Stem)
	if err != nil {
		return err
	}
	if stop|stem != 0 && c.readsVocabulary() {
		return fmt.Errorf("sketch.stopwords, sketch.stem: must be none with %s (its vocabulary holds unstemmed words), got %q and %q",
			c.Method, c.StopWords, c.Stem)
	}
	return nil
}

// Validate reports the first invalid field, naming its key under "sketch.".
func (c Config) Validate() error {
	if !slices.Contains(MethodNames(), c.Method) {
		return fmt.Errorf("sketch.method: must be one of %v, got %q", MethodNames(), c.Method)
	}
	if err := c.Params.Validate(); err != nil {
		return err
	}
	if c.Bits != 16 && c.Bits != 32 {
		return fmt.Errorf("sketch.bits: must be 16 or 32, got %d", c.Bits)
	}
	if err := c.Shingling().Validate(); err != nil {
		return err
	}
	if err := c.validateWords(); err != nil {
		return err
	}
	if t := c.ContainmentThreshold(); !(t >= 0 && t <= 1) {
		return fmt.Errorf("sketch.containment: must be in [0, 1] (0: no contained verdict), got %g", t)
	}
	if err := c.Verify.validate(); err != nil {
		return err
	}
	if c.Verify.Method != VerifyNone {
		if err := c.verifierConfig().Validate(); err != nil {
			return fmt.Errorf("sketch.verify: %w", err)
		}
	}
	if c.Contain && c.Method != MethodMinHash && c.Method != MethodOPH {
		return fmt.Errorf("sketch.contain: only with minhash or oph, got %s (bottomk, modm and full estimate containment themselves)", c.Method)
	}
	if c.Method == MethodModM {
		if err := c.ModM.validate(); err != nil {
			return err
		}
	}
	switch c.Method {
	case MethodBottomK:
		if c.BottomK.Keys < 1 || c.BottomK.Keys > c.Params.NumPerm {
			return fmt.Errorf("sketch.bottomk.keys: must be in [1, num_perm %d], got %d", c.Params.NumPerm, c.BottomK.Keys)
		}
	case MethodFull:
		if c.Full.MaxKeys < 1 {
			return fmt.Errorf("sketch.full.max_keys: must be >= 1, got %d", c.Full.MaxKeys)
		}
	case MethodSuperShingle:
		if c.Params.Bands < 2 || c.Params.Bands*c.Params.Rows != c.Params.NumPerm {
			return fmt.Errorf("sketch.bands, sketch.rows: supershingle needs bands >= 2 and bands*rows = num_perm %d, got %d*%d",
				c.Params.NumPerm, c.Params.Bands, c.Params.Rows)
		}
		if n := c.Params.Bands * (c.Params.Bands - 1) / 2; n > MaxKeyBands {
			return fmt.Errorf("sketch.bands: supershingle gives bands*(bands-1)/2 = %d keys, at most %d", n, MaxKeyBands)
		}
	case MethodSimHash:
		return c.SimHash.validate()
	case MethodIMatch:
		return c.IMatch.validate()
	}
	return nil
}

func (p ModMParams) validate() error {
	if p.M < 1 {
		return fmt.Errorf("sketch.modm.m: must be >= 1, got %d", p.M)
	}
	if p.Min < 1 || p.Min > MaxNumPerm {
		return fmt.Errorf("sketch.modm.min: must be in [1, %d], got %d", MaxNumPerm, p.Min)
	}
	return nil
}

func (s SimHashParams) validate() error {
	switch {
	case s.TF != SimHashTFSet && s.TF != SimHashTFLog && s.TF != SimHashTFCount:
		return fmt.Errorf("sketch.simhash.tf: must be %q, %q or %q, got %q", SimHashTFSet, SimHashTFLog, SimHashTFCount, s.TF)
	case s.Distance < 0 || s.Distance > 63:
		return fmt.Errorf("sketch.simhash.distance: must be in [0, 63], got %d", s.Distance)
	case s.Blocks <= s.Distance || s.Blocks > 64:
		return fmt.Errorf("sketch.simhash.blocks: must be in [distance+1, 64] = [%d, 64], got %d", s.Distance+1, s.Blocks)
	}
	if n := SimHashTables(s.Distance, s.Blocks); n > MaxKeyBands {
		return fmt.Errorf("sketch.simhash.blocks: %d blocks at distance %d need C(%d,%d) = %d tables, at most %d",
			s.Blocks, s.Distance, s.Blocks, s.Distance, n, MaxKeyBands)
	}
	return nil
}

func (m IMatchParams) validate() error {
	switch {
	case m.Select != "idf" && m.Select != "cf":
		return fmt.Errorf("sketch.imatch.select: must be \"idf\" or \"cf\", got %q", m.Select)
	case !(m.Low >= 0 && m.Low <= m.High) || math.IsInf(m.High, 0):
		return fmt.Errorf("sketch.imatch.low, sketch.imatch.high: must be finite with 0 <= low <= high, got [%g, %g]", m.Low, m.High)
	case m.Select == "cf" && m.High == 0:
		return fmt.Errorf("sketch.imatch.high: must be > 0 for select \"cf\"")
	case m.MinWords < 1:
		return fmt.Errorf("sketch.imatch.min_words: must be >= 1, got %d", m.MinWords)
	}
	return nil
}

// NewMethod returns the Method c names. c must have been through
// EnsureDefaults; NewMethod validates it. vocab is required by imatch and by
// simhash with idf, and ignored otherwise.
func NewMethod(c Config, vocab *vocab.Vocabulary) (Method, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	finder, err := newMethod(c, vocab)
	if err != nil || c.Verify.Method == VerifyNone {
		return finder, err
	}
	verifier, err := newMethod(c.verifierConfig(), nil)
	if err != nil {
		return nil, fmt.Errorf("sketch.verify: %w", err)
	}
	return newVerifyMethod(finder, verifier), nil
}

// newMethod returns the Method c names, without verification; c is valid.
func newMethod(c Config, vocab *vocab.Vocabulary) (Method, error) {
	sh := c.Shingling()
	switch c.Method {
	case MethodMinHash:
		if c.Contain {
			return newContainMethod(newMinHashMethod(c.Params, sh, c.Bits), c), nil
		}
		return newMinHashMethod(c.Params, sh, c.Bits), nil
	case MethodOPH:
		if c.Contain {
			return newContainMethod(newOPHMethod(c.Params, sh, c.Bits), c), nil
		}
		return newOPHMethod(c.Params, sh, c.Bits), nil
	case MethodBottomK:
		return newBottomKMethod(c, sh), nil
	case MethodModM:
		return newModMMethod(c, sh), nil
	case MethodFull:
		return newFullMethod(c, sh), nil
	case MethodSuperShingle:
		return newSuperShingleMethod(c.Params, sh), nil
	case MethodSimHash:
		if c.SimHash.IDF && vocab == nil {
			return nil, fmt.Errorf("sketch.simhash.idf: needs a vocabulary")
		}
		return newSimHashMethod(c, sh, vocab), nil
	default: // MethodIMatch
		if vocab == nil {
			return nil, fmt.Errorf("sketch.method: imatch needs a vocabulary")
		}
		return newIMatchMethod(c.IMatch, vocab), nil
	}
}
