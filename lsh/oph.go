package lsh

import "math"

// OPH computes one-permutation hashing signatures (Li, Owen and Zhang 2012)
// with optimal densification (Shrivastava 2017): one hash per shingle
// instead of one per shingle and permutation.
//
// Each shingle fingerprint x is hashed once, h = mix64(x ⊕ key), a
// bijection of the 64-bit space. The top 32 bits pick one of k bins
// (multiply-shift, so k need not be a power of two) and the low 32 bits are
// the value; bin i keeps the minimum value that falls into it, which is the
// minimum of a random permutation restricted to that bin. A bin no shingle
// fell into copies the value of a non-empty bin chosen by probing
// j = g(i, 1), g(i, 2), … with a fixed hash g of the bin index and attempt
// number until an originally non-empty bin is found. Because every document
// probes the same sequence, two documents agree at bin i with probability
// exactly J, so the fraction of agreeing bins (Similarity) is an unbiased
// estimator of J, with variance close to that of k independent
// permutations (Shrivastava shows it is optimal among densifications).
//
// Signatures are ordinary Signature values: Similarity, BandKeys-style
// banding and the stored encoding work unchanged. A value of math.MaxUint32
// only ever means "empty" (real values are clamped below it), and only an
// empty shingle set leaves bins empty. An OPH is immutable and safe for
// concurrent use.
type OPH struct {
	k          int
	key, probe uint64
}

// NewOPH returns an OPH with k bins whose hashes are derived from seed. It
// panics unless 1 <= k <= MaxNumPerm.
func NewOPH(k int, seed uint64) *OPH {
	if k < 1 || k > MaxNumPerm {
		panic("lsh: NewOPH: bins out of range")
	}
	state := seed ^ 0x6f70682d6b657973 // "oph-keys": not the MinHash stream
	return &OPH{k: k, key: splitmix64(&state), probe: splitmix64(&state)}
}

// Signature writes the densified OPH signature of the set of shingles into
// dst, resized to k bins (reusing its capacity), and returns it. Repeated
// shingles do not change it. An empty set gives all math.MaxUint32.
func (o *OPH) Signature(dst Signature, shingles []uint64) Signature {
	k := o.k
	if cap(dst) < k {
		dst = make(Signature, k)
	}
	dst = dst[:k]
	for i := range dst {
		dst[i] = math.MaxUint32
	}
	key, k64 := o.key, uint64(k)
	for _, x := range shingles {
		h := mix64(x ^ key)
		bin := (h >> 32) * k64 >> 32
		v := min(uint32(h), math.MaxUint32-1)
		if v < dst[bin] {
			dst[bin] = v
		}
	}
	if len(shingles) > 0 {
		o.densify(dst)
	}
	return dst
}

// densify fills every empty bin from a bin that was non-empty before
// densification began.
func (o *OPH) densify(sig Signature) {
	var full [MaxNumPerm / 64]uint64 // bins non-empty before densification
	empty := 0
	for i, v := range sig {
		if v != math.MaxUint32 {
			full[i>>6] |= 1 << (i & 63)
		} else {
			empty++
		}
	}
	if empty == 0 {
		return
	}
	k64 := uint64(len(sig))
	for i := range sig {
		if full[i>>6]&(1<<(i&63)) != 0 {
			continue
		}
		for attempt := uint64(1); ; attempt++ {
			j := (mix64(o.probe^(uint64(i)<<32|attempt)) >> 32) * k64 >> 32
			if full[j>>6]&(1<<(j&63)) != 0 {
				sig[i] = sig[j]
				break
			}
		}
	}
}

// ophMethod is the oph Method: an OPH signature banded like MinHash.
type ophMethod struct {
	o       *OPH
	p       Params
	sh      Shingling
	codec   sigCodec
	version string
}

func newOPHMethod(p Params, sh Shingling, bits int) *ophMethod {
	c := sigCodec{n: p.NumPerm, bits: bits}
	return &ophMethod{o: NewOPH(p.NumPerm, p.Seed), p: p, sh: sh, codec: c, version: bandedVersion(MethodOPH, p, sh) + c.versionSuffix()}
}

func (m *ophMethod) Name() string    { return MethodOPH }
func (m *ophMethod) Version() string { return m.version }
func (m *ophMethod) KeyBands() int   { return m.p.Bands }

func (m *ophMethod) shingling() Shingling { return m.sh }

func (m *ophMethod) Sketch(sc *Scratch, text []byte, sketch []byte, keys []uint64) ([]byte, []uint64) {
	return sketchText(m, sc, text, sketch, keys)
}

func (m *ophMethod) sketchShingles(sc *Scratch, sketch []byte, keys []uint64) ([]byte, []uint64) {
	sc.sig = m.o.Signature(sc.sig, sc.shingles)
	m.codec.narrow(sc.sig)
	if len(sc.shingles) > 0 {
		keys = appendBandKeys(keys, sc.sig, m.p.Bands, m.p.Rows)
	}
	return m.codec.append(sketch, sc.sig), keys
}

func (m *ophMethod) Compare(a, b []byte) (Estimate, error) {
	return m.codec.compare(a, b, m.p.Threshold)
}

func (m *ophMethod) keysOf(dst []uint64, sketch []byte) ([]uint64, error) {
	sig, err := m.codec.decode(sketch)
	if err != nil || empty(sig) {
		return dst, err
	}
	return appendBandKeys(dst, sig, m.p.Bands, m.p.Rows), nil
}

func (m *ophMethod) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	return m.codec.fingerprints(dst, sketch)
}
