package clean

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxSegment bounds how much non-ASCII text is normalised in one piece, which
// bounds the scratch memory a hostile page can demand.
const maxSegment = 64 << 10

// writer appends normalised words to dst. Its input may arrive in pieces
// (one per HTML text token); a word continues across pieces until a
// separator or brk.
type writer struct {
	dst       []byte
	max       int  // word cap
	tokens    int  // words written
	full      bool // a word past max was seen
	inWord    bool // the last byte written belongs to an unfinished word
	wordBegin int  // len(dst) before the current word and its leading space
	wordStart int  // offset in dst of the current word's first byte

	// Scratch for the non-ASCII path, kept between uses.
	san, nfk, fold []byte
}

// reset prepares w to append to dst.
func (w *writer) reset(dst []byte, maxTokens int) {
	w.dst, w.max, w.tokens, w.full, w.inWord = dst, maxTokens, 0, false, false
}

// brk ends the current word.
func (w *writer) brk() { w.inWord = false }

// startWord opens a new word, writing the separating space, unless the cap is
// reached, in which case it records truncation and returns false.
func (w *writer) startWord() bool {
	dst, ok := w.openWord(w.dst)
	w.dst = dst
	return ok
}

// openWord is startWord on dst, which stands for w.dst and is returned: the
// ASCII loop keeps dst in a local and stores it in w only at its end, since
// storing a pointer in the heap costs a write barrier while the garbage
// collector marks (one such store a word: 1.3 CPU s of 46 in a 1M bench
// profile).
func (w *writer) openWord(dst []byte) ([]byte, bool) {
	if w.tokens >= w.max {
		w.full = true
		return dst, false
	}
	w.wordBegin = len(dst)
	if w.tokens > 0 {
		dst = append(dst, ' ')
	}
	w.wordStart = len(dst)
	w.tokens++
	w.inWord = true
	return dst, true
}

// write normalises src and appends its words. ASCII and Russian letters are
// handled inline; other non-ASCII runs go through full normalisation.
func (w *writer) write(src []byte) {
	for i := 0; i < len(src) && !w.full; {
		if src[i] < utf8.RuneSelf {
			i = w.ascii(src, i)
		} else {
			i = w.nonASCII(src, i)
		}
	}
}

// ascii consumes the ASCII run of src starting at i and returns where it
// stopped: at a non-ASCII byte, the end of src, or when the cap is hit.
func (w *writer) ascii(src []byte, i int) int {
	dst, inWord := w.dst, w.inWord
	for ; i < len(src); i++ {
		c := src[i]
		if c >= utf8.RuneSelf {
			break
		}
		l := lowerTab[c]
		if l == 0 {
			inWord = false
			continue
		}
		if !inWord {
			var ok bool
			if dst, ok = w.openWord(dst); !ok {
				w.dst = dst
				return len(src)
			}
			inWord = true
		}
		dst = append(dst, l)
	}
	w.dst, w.inWord = dst, inWord
	return i
}

// nonASCII consumes non-ASCII text at src[i:] and returns where it stopped.
// Russian letters and common punctuation take short cuts; any other run of
// runes, up to the next ASCII byte, Russian letter or short-cut punctuation,
// is normalised as a whole. Those stopping points are all normalisation
// boundaries, and rollback repairs a run that begins with a combining mark.
func (w *writer) nonASCII(src []byte, i int) int {
	if n := russianSpan(src[i:]); n > 0 {
		if w.inWord || w.startWord() {
			w.dst = appendRussian(w.dst, src[i:i+n])
		}
		return i + n
	}
	r, n := utf8.DecodeRune(src[i:])
	if isPunct(r) {
		w.inWord = false
		return i + n
	}
	j := i + n
	for j < len(src) && src[j] >= utf8.RuneSelf {
		if j-i >= maxSegment {
			j = cutSegment(src[i:j]) + i
			break
		}
		if russianSpan(src[j:]) > 0 {
			break
		}
		r, n := utf8.DecodeRune(src[j:])
		if isPunct(r) {
			break
		}
		j += n
	}
	w.segment(src[i:j])
	return j
}

// cutSegment returns where to cut an over-long run: its last normalisation
// boundary, so both pieces normalise independently, or failing that a rune
// boundary.
func cutSegment(seg []byte) int {
	if b := norm.NFKC.LastBoundary(seg); b > 0 {
		return b
	}
	j := len(seg)
	for j > 1 && !utf8.RuneStart(seg[j-1]) {
		j--
	}
	return max(j-1, 1)
}

// segment normalises and writes a run of non-ASCII bytes.
func (w *writer) segment(seg []byte) {
	w.san = w.rollback(w.san[:0])
	w.san = sanitize(w.san, seg)
	w.emit(w.normalise(w.san))
}

// rollback moves the tail of the current word, from its last normalisation
// boundary, off dst and onto buf, so that it is normalised again together
// with the text that follows (a combining mark must compose with the letter
// before it even when an inline tag separates them).
func (w *writer) rollback(buf []byte) []byte {
	if !w.inWord {
		return buf
	}
	word := w.dst[w.wordStart:]
	p := norm.NFKC.LastBoundary(word)
	if p == len(word) {
		return buf
	}
	buf = append(buf, word[max(p, 0):]...)
	if p <= 0 {
		w.dst = w.dst[:w.wordBegin]
		w.tokens--
		w.inWord = false
	} else {
		w.dst = w.dst[:w.wordStart+p]
	}
	return buf
}

// normalise returns b in NFKC with runes folded, repeating until stable
// because folding can undo normality (ё plus a combining grave becomes е plus
// grave, which composes to ѐ). Folding is idempotent, so the loop stops
// as soon as a folded string is already normal.
func (w *writer) normalise(b []byte) []byte {
	if norm.NFKC.QuickSpan(b) != len(b) {
		w.nfk = norm.NFKC.Append(w.nfk[:0], b...)
		b = w.nfk
	}
	for range 4 {
		var changed bool
		w.fold, changed = foldInto(w.fold[:0], b)
		if !changed {
			return b
		}
		if norm.NFKC.QuickSpan(w.fold) == len(w.fold) {
			return w.fold
		}
		w.nfk = norm.NFKC.Append(w.nfk[:0], w.fold...)
		b = w.nfk
	}
	return b
}

// emit writes normalised, folded text, splitting it into words.
func (w *writer) emit(b []byte) {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch runeClass(r) {
		case classWord:
			if !w.inWord && !w.startWord() {
				return
			}
			w.dst = append(w.dst, b[i:i+n]...)
		case classMark:
			if w.inWord {
				w.dst = append(w.dst, b[i:i+n]...)
			}
		default:
			w.inWord = false
		}
		i += n
	}
}
