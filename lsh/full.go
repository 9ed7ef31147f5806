package lsh

// fullMethod is the full Method: the sketch is the whole set of shingle
// fingerprints, sorted and without repeats (8 bytes per distinct shingle),
// so resemblance and both containments are exact (up to 64-bit fingerprint
// collisions). Its keys are every fingerprint, matched as a set — an
// inverted index that finds every pair sharing a shingle, which is exact
// but costs one posting per shingle: for small collections, and as the
// oracle the other methods are measured against.
type fullMethod struct {
	threshold float64
	sh        Shingling
	version   string
}

func newFullMethod(threshold float64, sh Shingling) *fullMethod {
	return &fullMethod{threshold: threshold, sh: sh, version: MethodFull + "-" + sh.Version()}
}

func (m *fullMethod) Name() string    { return MethodFull }
func (m *fullMethod) Version() string { return m.version }
func (m *fullMethod) KeyBands() int   { return 0 }

func (m *fullMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.shingles = SortedSet(m.sh.Append(sc.shingles[:0], text))
	return appendSet(sketch, sc.shingles), append(keys, sc.shingles...)
}

func (m *fullMethod) Compare(a, b []byte) (Estimate, error) {
	return compareSets(a, b, m.threshold)
}
