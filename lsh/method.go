package lsh

import "errors"

// Method names, the values of Config.Method.
const (
	MethodMinHash      = "minhash"      // minimal elements of n permutations
	MethodBottomK      = "bottomk"      // n minimal fingerprints of one permutation
	MethodOPH          = "oph"          // one-permutation hashing with optimal densification
	MethodModM         = "modm"         // every fingerprint ≡ 0 (mod m)
	MethodFull         = "full"         // the whole fingerprint set (exact)
	MethodSuperShingle = "supershingle" // Fetterly's super- and mega-shingles
	MethodSimHash      = "simhash"      // Charikar's 64-bit SimHash
	MethodIMatch       = "imatch"       // I-Match lexical signature
)

// MethodNames returns the names NewMethod accepts, in a fixed order.
func MethodNames() []string {
	return []string{MethodMinHash, MethodBottomK, MethodOPH, MethodModM, MethodFull,
		MethodSuperShingle, MethodSimHash, MethodIMatch}
}

// ErrSketch is wrapped by the errors Compare returns for a sketch that its
// method could not have produced (wrong length, unsorted set).
var ErrSketch = errors.New("lsh: malformed sketch")

// Method is one way of sketching documents, as the pipeline uses it: sketch
// the normalised text once, look its keys up in an index, and verify each
// candidate by comparing the two encoded sketches. A Method is immutable and
// safe for concurrent use; NewMethod builds one from a Config.
type Method interface {
	// Name returns the configuration name, one of MethodNames.
	Name() string
	// Version returns a short string naming the method and every parameter
	// that changes its sketches or keys, for the dedup.sketch header and the
	// state's metadata; two Methods with the same Version produce the same
	// sketches and keys.
	Version() string
	// Sketch appends the encoded sketch of the normalised text to sketch and
	// its index keys to keys, and returns both. sc holds scratch buffers
	// reused across calls; nothing returned aliases it.
	Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64)
	// Compare estimates the similarity of the documents behind two encoded
	// sketches of this Method. It does not allocate (except bottomk with
	// k > 128). The error wraps ErrSketch when either is malformed.
	Compare(a, b []byte) (Estimate, error)
	// KeyBands returns n > 0 when Sketch returns at most n keys and key i
	// only ever needs to be looked up as band i (LSH bands, SimHash tables,
	// mega-shingles), or 0 when the number of keys varies and any key may
	// match any key (postings of sampled fingerprints: bottomk, modm, full).
	// Every key already mixes in its band or table, so matching keys as a
	// set, ignoring positions, is always correct.
	KeyBands() int
}

// shingleMethod is a Method whose Sketch is its Shingling's appendScratch
// followed by sketchShingles: every Method but imatch. It lets a
// verifyMethod whose two Methods shingle alike shingle the text once.
type shingleMethod interface {
	Method
	shingling() Shingling
	// sketchShingles is Sketch on the shingles already in sc.shingles. It
	// leaves their set there, though it may sort and deduplicate them
	// (full), which changes none of the set sketches (VerifyMethodNames).
	sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64)
}

// Estimate is what a Method's Compare says about two documents A and B.
type Estimate struct {
	// Resemblance estimates |A∩B|/|A∪B| of the shingle sets (exact for
	// full). For simhash it is the fraction of equal bits, 1−d/64; for
	// imatch 1 when the signatures agree and 0 otherwise.
	Resemblance float64
	// AinB and BinA estimate the containments |A∩B|/|A| and |A∩B|/|B| when
	// Containment is true (bottomk, modm, full); otherwise they are 0. One
	// is NaN when the method withholds it because too few of that
	// document's shingles are in the sample it would rest on (modm: see
	// ModM); NaN is below every threshold, so it never makes a page
	// contained.
	AinB, BinA  float64
	Containment bool
	// Distance is the Hamming distance of SimHash fingerprints, -1 for the
	// other methods.
	Distance int
	// Near is the method's own verdict: resemblance ≥ Config.Threshold for
	// the set sketches, a shared mega-shingle (≥ 2 of 6 super-shingles equal)
	// for supershingle, Distance ≤ simhash.distance for simhash, equal
	// signatures for imatch.
	Near bool
}

// Scratch holds the buffers a Method reuses between calls to Sketch. The
// zero value is ready to use. A Scratch must not be used by two goroutines
// at once; give each worker its own.
type Scratch struct {
	shingles []uint64
	words    []byte            // text after stop-word removal and stemming
	stems    map[string]string // recent words' stems (see clean.AppendFilteredWords)
	keysCut  int               // keys the last Sketch left out (full.max_keys)
	hashes   []uint64
	sig      Signature
	weights  []float64
	terms    termCounts // distinct simhash features and their counts
}

// KeysCut returns how many index keys the last Sketch with this Scratch left
// out because of a cap on keys per document (full.max_keys), or 0.
func (sc *Scratch) KeysCut() int { return sc.keysCut }

// sketchText is the Sketch of every shingleMethod: shingle the text into
// sc.shingles, then sketch them.
func sketchText(m shingleMethod, sc *Scratch, text, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.shingles = m.shingling().appendScratch(sc, sc.shingles[:0], text)
	return m.sketchShingles(sc, sketch, keys)
}
