package clean

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// AuthorKey appends the normalised key of one author name to dst: the
// surname, a space and the initial of the first given name ("smith j"), or
// the surname alone when the name has no given name. "Smith, John",
// "J. Smith", "John R. Smith" and "SMITH J" all give "smith j"; "Иванов И. И.",
// "И.И. Иванов" and "Иван Иванович Иванов" give "иванов и".
//
// The name is cleaned as Text is (NFKC, case folding, ё → е, punctuation
// separates words), then diacritics are stripped from Latin letters only
// ("Müller" = "Muller", "José" = "Jose"): in Cyrillic a mark can make
// another letter ("й" is not "и"), so there it stays. Names are not
// transliterated: "Ivanov" and "Иванов" are different keys.
//
// Which word is the surname: with a comma, the last word before it ("van der
// Berg, J." → "berg"); without one, the only word longer than one letter if
// there is exactly one ("Smith J", "И. И. Иванов"), else the last such word
// ("John Smith", "J. van der Berg" → "berg"). A surname written first
// without a comma after a full given name ("Иванов Иван") is therefore read
// the wrong way round. A name with no words appends nothing.
func (c *Cleaner) AuthorKey(dst, name []byte) []byte {
	var given []byte
	surname, after, comma := bytes.Cut(name, []byte{','})
	text, _ := c.Text(nil, surname)
	words := bytes.Fields(stripLatinMarks(text))
	if comma {
		text, _ = c.Text(nil, after)
		if g := bytes.Fields(stripLatinMarks(text)); len(g) > 0 {
			given = g[0]
		}
		if len(words) > 0 {
			words = words[len(words)-1:]
		}
	}
	sn, gn := pickSurname(words)
	if given == nil {
		given = gn
	}
	if sn == nil {
		return dst
	}
	dst = append(dst, sn...)
	if r, size := utf8.DecodeRune(given); size > 0 && r != utf8.RuneError {
		dst = append(dst, ' ')
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// pickSurname chooses the surname among the words of a name written without
// a comma and returns it with the first other word (the given name).
func pickSurname(words [][]byte) (surname, given []byte) {
	si, full := -1, 0
	for i, w := range words {
		if utf8.RuneCount(w) > 1 {
			si, full = i, full+1
		}
	}
	if si < 0 && len(words) > 0 {
		si = len(words) - 1 // only initials: the last one stands for the surname
	}
	if si < 0 {
		return nil, nil
	}
	for i, w := range words {
		if i != si && (full == 1 || i < si) {
			return words[si], w
		}
	}
	return words[si], nil
}

// stripLatinMarks removes the combining marks that follow a Latin letter
// and recomposes the rest, in place.
func stripLatinMarks(b []byte) []byte {
	if isASCII(b) {
		return b
	}
	d := norm.NFD.Bytes(b)
	out := d[:0]
	latin := false
	for i := 0; i < len(d); {
		r, size := utf8.DecodeRune(d[i:])
		mark := unicode.Is(unicode.Mn, r)
		if !mark {
			latin = unicode.Is(unicode.Latin, r)
		}
		if !mark || !latin {
			out = append(out, d[i:i+size]...)
		}
		i += size
	}
	return append(b[:0], norm.NFC.Bytes(out)...)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
