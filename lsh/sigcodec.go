package lsh

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// sigCodec encodes the signatures of minhash and oph: n minima, each kept
// whole (32 bits, 4 bytes) or as its low 16 bits (2 bytes; Config.Bits), as
// b-bit minwise hashing does (Li and König). A 16-bit signature is narrowed
// before its band keys are computed, so the keys can be read back from the
// stored sketch (KeysOf) exactly as they were made; its Compare corrects for
// the minima that agree in their low bits by chance.
type sigCodec struct {
	n    int
	bits int // 32 or 16
}

// width is the bytes of one minimum.
func (c sigCodec) width() int { return c.bits / 8 }

// narrow keeps the low 16 bits of each minimum of a 16-bit codec, in place;
// the empty minimum stays empty (a minimum whose low bits are all ones reads
// as empty too: one position in 65,536, left out of agreements).
func (c sigCodec) narrow(sig Signature) {
	if c.bits != 16 {
		return
	}
	for i, v := range sig {
		if v &= 0xFFFF; v == 0xFFFF {
			v = math.MaxUint32
		}
		sig[i] = v
	}
}

// append encodes a (narrowed) signature.
func (c sigCodec) append(dst []byte, sig Signature) []byte {
	dst = slices.Grow(dst, c.width()*len(sig)) // one allocation, not one per doubling
	if c.bits == 32 {
		return sig.AppendBinary(dst)
	}
	for _, v := range sig {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(v))
	}
	return dst
}

func (c sigCodec) check(sketch []byte) error {
	if len(sketch) != c.width()*c.n {
		return fmt.Errorf("%w: signature of %d bytes, want %d", ErrSketch, len(sketch), c.width()*c.n)
	}
	return nil
}

// at is minimum i of an encoded signature, math.MaxUint32 when empty.
func (c sigCodec) at(sketch []byte, i int) uint32 {
	if c.bits == 32 {
		return binary.LittleEndian.Uint32(sketch[4*i:])
	}
	if v := binary.LittleEndian.Uint16(sketch[2*i:]); v != 0xFFFF {
		return uint32(v)
	}
	return math.MaxUint32
}

// decode reads an encoded signature back.
func (c sigCodec) decode(sketch []byte) (Signature, error) {
	if err := c.check(sketch); err != nil {
		return nil, err
	}
	sig := make(Signature, c.n)
	for i := range sig {
		sig[i] = c.at(sketch, i)
	}
	return sig, nil
}

// compare estimates the resemblance of two encoded signatures: the share of
// positions where both hold the same minimum, not empty; with 16 bits less
// the share expected by chance, 2^-16 of the positions that differ.
func (c sigCodec) compare(a, b []byte, threshold float64) (Estimate, error) {
	if len(a) != c.width()*c.n || len(b) != c.width()*c.n {
		return Estimate{Distance: -1}, fmt.Errorf("%w: signatures of %d and %d bytes, want %d", ErrSketch, len(a), len(b), c.width()*c.n)
	}
	if c.bits == 32 {
		sim := float64(agreeing(a, b)) / float64(c.n)
		return Estimate{Resemblance: sim, Distance: -1, Near: sim >= threshold}, nil
	}
	same := 0
	for i := 0; i < len(a); i += 2 {
		if v := binary.LittleEndian.Uint16(a[i:]); v == binary.LittleEndian.Uint16(b[i:]) && v != 0xFFFF {
			same++
		}
	}
	chance := math.Ldexp(1, -16)
	sim := max((float64(same)/float64(c.n)-chance)/(1-chance), 0)
	return Estimate{Resemblance: sim, Distance: -1, Near: sim >= threshold}, nil
}

// fingerprints appends i<<32 | v for each non-empty minimum v at position i.
func (c sigCodec) fingerprints(dst []uint64, sketch []byte) ([]uint64, error) {
	if err := c.check(sketch); err != nil {
		return dst, err
	}
	for i := range c.n {
		if v := c.at(sketch, i); v != math.MaxUint32 {
			dst = append(dst, uint64(i)<<32|uint64(v))
		}
	}
	return dst, nil
}

// versionSuffix names a 16-bit codec in the sketch string.
func (c sigCodec) versionSuffix() string {
	if c.bits == 16 {
		return "-16bit"
	}
	return ""
}
