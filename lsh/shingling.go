package lsh

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/dedupstream/dedupstream/lsh/clean"
)

// MaxShingleOffset is the largest Shingling.Offset Validate accepts.
const MaxShingleOffset = 1 << 10

// Shingling says how normalised text becomes shingle fingerprints: windows
// of Length consecutive words (or, with Chars, Length consecutive runes,
// spaces included), of which every Offset-th is kept. Each kept window is
// fingerprinted with xxhash64 of its bytes, as [Sketcher.Shingles] does;
// with Offset 1 and word windows the two produce the same fingerprints.
//
// Offset k keeps the windows starting at word (or rune) 0, k, 2k, …: it
// divides the work and the set size by k, but the choice is positional, so
// one word inserted near the start shifts every later window off the grid.
// Content-defined sampling (the modm method) does not have that weakness.
//
// StopWords and Stem rewrite the words before the windows are cut: words in
// a StopWords language's Snowball stop-word list are dropped, and words of a
// Stem language are replaced by their Snowball stems (a word's language is
// its script; see clean.Langs). Both are off when zero, and then the text is
// shingled as it is.
type Shingling struct {
	Length    int         // words (runes with Chars) per shingle; 0 → 5
	Offset    int         // keep every Offset-th window; 0 → 1
	Chars     bool        // character n-grams instead of word shingles
	StopWords clean.Langs // drop these languages' stop words
	Stem      clean.Langs // stem these languages' words
}

// EnsureDefaults replaces zero fields with their defaults.
func (s *Shingling) EnsureDefaults() {
	if s.Length == 0 {
		s.Length = 5
	}
	if s.Offset == 0 {
		s.Offset = 1
	}
}

// Validate reports the first invalid field, naming its key under "sketch.".
func (s Shingling) Validate() error {
	switch {
	case s.Length < 1 || s.Length > MaxShingle:
		return fmt.Errorf("sketch.shingle: must be in [1, %d], got %d", MaxShingle, s.Length)
	case s.Offset < 1 || s.Offset > MaxShingleOffset:
		return fmt.Errorf("sketch.shingle_offset: must be in [1, %d], got %d", MaxShingleOffset, s.Offset)
	}
	return nil
}

// Version returns the shingling's part of a sketch version string: "w5" for
// 5-word shingles, "c7" for 7-rune n-grams, with "o3" appended for offset 3,
// "-stopen" for English stop words removed and "-stemenru" for English and
// Russian stemming.
func (s Shingling) Version() string {
	return string(s.appendVersion(nil))
}

func (s Shingling) appendVersion(b []byte) []byte {
	if s.Chars {
		b = append(b, 'c')
	} else {
		b = append(b, 'w')
	}
	b = strconv.AppendInt(b, int64(s.Length), 10)
	if s.Offset > 1 {
		b = append(b, 'o')
		b = strconv.AppendInt(b, int64(s.Offset), 10)
	}
	if s.StopWords != 0 {
		b = appendLangs(append(b, "-stop"...), s.StopWords)
	}
	if s.Stem != 0 {
		b = appendLangs(append(b, "-stem"...), s.Stem)
	}
	return b
}

// rewrites reports whether the words are rewritten before shingling.
func (s Shingling) rewrites() bool { return s.StopWords|s.Stem != 0 }

// AppendText appends to dst the words of text as the shingles see them:
// without stop words, stemmed, joined by single spaces. Without StopWords
// and Stem it appends text unchanged. A text of only stop words keeps them.
func (s Shingling) AppendText(dst, text []byte) []byte {
	if !s.rewrites() {
		return append(dst, text...)
	}
	return clean.AppendFilteredWords(dst, text, s.StopWords, s.Stem, nil)
}

// Append appends to dst the fingerprints of the kept windows of text and
// returns the extended slice. A text shorter than one window (but not empty)
// yields one fingerprint of the whole text; empty text yields none. Repeated
// windows repeat their fingerprint. s must be valid (zero fields are not
// defaulted here). With StopWords or Stem it allocates a buffer for the
// rewritten words; the Methods reuse one from their Scratch.
func (s Shingling) Append(dst []uint64, text []byte) []uint64 {
	if s.rewrites() {
		text = s.AppendText(nil, text)
	}
	return s.appendWindows(dst, text)
}

// appendScratch is Append with the rewritten words kept in sc. Every Method
// but imatch starts its Sketch with it, so it also clears sc.keysCut.
func (s Shingling) appendScratch(sc *Scratch, dst []uint64, text []byte) []uint64 {
	sc.keysCut = 0
	if s.rewrites() {
		if sc.stems == nil && s.Stem != 0 {
			sc.stems = make(map[string]string)
		}
		sc.words = clean.AppendFilteredWords(sc.words[:0], text, s.StopWords, s.Stem, sc.stems)
		text = sc.words
	}
	return s.appendWindows(dst, text)
}

// appendWindows fingerprints the windows of text as it is.
func (s Shingling) appendWindows(dst []uint64, text []byte) []uint64 {
	if len(text) == 0 {
		return dst
	}
	if s.Chars {
		return appendCharGrams(dst, text, s.Length, s.Offset)
	}
	return appendWordShingles(dst, text, s.Length, s.Offset)
}

// appendWordShingles fingerprints every offset-th window of w words (window i,
// counted from 0, is kept when i%offset == 0); see Sketcher.Shingles.
func appendWordShingles(dst []uint64, text []byte, w, offset int) []uint64 {
	var starts [MaxShingle]int // ring of the last w words' first bytes
	r, words, skip := 0, 0, 0  // r: the ring's next slot, the oldest word's; skip: windows to pass over
	for pos := 0; ; {
		// The word's end, by a plain loop: words are short, and a call of
		// bytes.IndexByte costs more. (It would pay on text without spaces,
		// such as CJK, which clean does not cut into words.)
		end := pos
		for end < len(text) && text[end] != ' ' {
			end++
		}
		starts[r] = pos
		if r++; r == w {
			r = 0
		}
		words++
		if words >= w {
			if skip == 0 {
				dst = append(dst, xxhash.Sum64(text[starts[r]:end]))
				skip = offset
			}
			skip--
		}
		if end == len(text) {
			break
		}
		pos = end + 1
	}
	if words < w {
		dst = append(dst, xxhash.Sum64(text))
	}
	return dst
}

// appendCharGrams fingerprints every offset-th window of n runes. starts is
// a ring of the byte offsets of the last n+1 rune starts.
func appendCharGrams(dst []uint64, text []byte, n, offset int) []uint64 {
	var ring [MaxShingle + 1]int
	runes, win := 0, 0
	for pos := 0; pos < len(text); {
		ring[runes%(n+1)] = pos
		runes++
		if c := text[pos]; c < utf8.RuneSelf {
			pos++
		} else {
			_, size := utf8.DecodeRune(text[pos:])
			pos += size
		}
		if runes >= n {
			if win%offset == 0 {
				lo := ring[(runes-n)%(n+1)]
				dst = append(dst, xxhash.Sum64(text[lo:pos]))
			}
			win++
		}
	}
	if runes < n {
		dst = append(dst, xxhash.Sum64(text))
	}
	return dst
}

// AppendWords appends the fingerprint (xxhash64) of every word of text to
// dst, in order, and returns the extended slice: the term fingerprints used
// by Vocabulary, the tf vectors, I-Match and edit similarity.
func AppendWords(dst []uint64, text []byte) []uint64 {
	if len(text) == 0 {
		return dst
	}
	return appendWordShingles(dst, text, 1, 1)
}

// appendLangs appends the short version-string form of l: "en", "ru" or
// "enru".
func appendLangs(b []byte, l clean.Langs) []byte {
	if l&clean.LangEnglish != 0 {
		b = append(b, "en"...)
	}
	if l&clean.LangRussian != 0 {
		b = append(b, "ru"...)
	}
	return b
}
