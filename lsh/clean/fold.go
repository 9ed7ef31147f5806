package clean

import (
	"unicode"
	"unicode/utf8"
)

// z8 is eight NUL bytes, a building block for lowerTab.
const z8 = "\x00\x00\x00\x00\x00\x00\x00\x00"

// lowerTab maps each ASCII byte to its lower-case form if it is a letter or
// a digit, and to 0 if it separates words. It is a constant so that the hot
// loop needs one load per byte and no package state can change it.
const lowerTab = z8 + z8 + z8 + z8 + z8 + z8 + // 0x00-0x2f
	"0123456789" + "\x00\x00\x00\x00\x00\x00\x00" + // 0x30-0x40
	"abcdefghijklmnopqrstuvwxyz" + "\x00\x00\x00\x00\x00\x00" + // 0x41-0x60
	"abcdefghijklmnopqrstuvwxyz" + "\x00\x00\x00\x00\x00" // 0x61-0x7f

// Rune classes after normalisation.
const (
	classSep  = iota // separates words
	classWord        // letter or digit: starts or continues a word
	classMark        // combining mark: continues a word, else separates
)

// foldRune lower-cases r and maps ё to е. Cyrillic and ASCII take a short cut
// around the unicode tables.
func foldRune(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	case 'А' <= r && r <= 'Я':
		return r + ('а' - 'А')
	case 'а' <= r && r <= 'я':
		return r
	case r == 'ё' || r == 'Ё':
		return 'е'
	}
	return unicode.ToLower(r)
}

// runeClass classifies a normalised, lower-cased rune.
func runeClass(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		if lowerTab[r] != 0 {
			return classWord
		}
		return classSep
	case 0x400 <= r && r <= 0x4ff: // Cyrillic block
		switch {
		case r == 0x482: // ҂ thousands sign
			return classSep
		case 0x483 <= r && r <= 0x489: // titlo and other combining marks
			return classMark
		}
		return classWord
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return classWord
	case unicode.IsMark(r):
		return classMark
	}
	return classSep
}

// isIgnorable reports whether r is an invisible format character that may
// sit inside a word and is removed without splitting it.
func isIgnorable(r rune) bool {
	switch r {
	case 0xad, 0x200c, 0x200d, 0x2060, 0xfeff:
		return true
	}
	return false
}

// isPunct reports whether r is common punctuation or spacing that separates
// words and is left so by NFKC, which lets it skip normalisation.
func isPunct(r rune) bool {
	switch r {
	case 0xa0, 0xa9, 0xab, 0xae, 0xb7, 0xbb, // nbsp © « ® · »
		0x2009, 0x202f, 0x2013, 0x2014, 0x2022, 0x2026, // spaces – — • …
		0x2018, 0x2019, 0x201c, 0x201d, 0x201e: // quotes
		return true
	}
	return false
}

// sanitize appends seg to buf with ignorable runes removed and each invalid
// UTF-8 byte replaced by a space, so that later stages see valid text.
func sanitize(buf, seg []byte) []byte {
	for i := 0; i < len(seg); {
		r, n := utf8.DecodeRune(seg[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			buf = append(buf, ' ')
		case !isIgnorable(r):
			buf = append(buf, seg[i:i+n]...)
		}
		i += n
	}
	return buf
}

// foldInto appends src with every rune folded to dst and reports whether
// anything changed.
func foldInto(dst, src []byte) ([]byte, bool) {
	changed := false
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if f := foldRune(r); f != r {
			r, changed = f, true
		}
		dst = utf8.AppendRune(dst, r)
		i += n
	}
	return dst, changed
}

// russianSpan returns the length of the prefix of seg made only of the 66
// letters of the Russian alphabet. Such text is NFKC-normal, starts at a
// normalisation boundary, and folds with byte arithmetic.
func russianSpan(seg []byte) int {
	i := 0
	for i+1 < len(seg) {
		c0, c1 := seg[i], seg[i+1]
		ok := c0 == 0xd0 && (0x90 <= c1 && c1 <= 0xbf || c1 == 0x81) ||
			c0 == 0xd1 && (0x80 <= c1 && c1 <= 0x8f || c1 == 0x91)
		if !ok {
			break
		}
		i += 2
	}
	return i
}

// appendRussian appends the folded form of seg, which must satisfy
// russianSpan(seg) == len(seg).
func appendRussian(dst, seg []byte) []byte {
	for i := 0; i < len(seg); i += 2 {
		c0, c1 := seg[i], seg[i+1]
		switch {
		case c0 == 0xd0 && c1 <= 0x9f: // А-П, and Ё at 0x81
			if c1 == 0x81 {
				c1 = 0xb5 // е
			} else {
				c1 += 0x20
			}
		case c0 == 0xd0 && c1 <= 0xaf: // Р-Я
			c0, c1 = 0xd1, c1-0x20
		case c0 == 0xd1 && c1 == 0x91: // ё
			c0, c1 = 0xd0, 0xb5
		}
		dst = append(dst, c0, c1)
	}
	return dst
}
