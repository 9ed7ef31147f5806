package prepare

//go:generate go run ../../offline/lab/detectgen

// Detection is the last step of finding a page's encoding (see charset.go):
// a value that is not UTF-8 and names no charset is read in each candidate
// encoding below, each reading is scored by a model of the language that
// encoding is written in, and the cheapest reading wins — as browsers do
// for such pages (Firefox's chardetng, Chrome's Compact Encoding
// Detection), with the same candidates and smaller models.
//
// A reading's cost is what its characters cost under its model, in
// quarter bits, so that costs of different readings of the same bytes
// compare:
//
//   - Cyrillic (windows-1251, koi8-r, ibm866, iso-8859-5, x-mac-cyrillic):
//     each Russian letter by a letter-bigram table (detect_model.go, built
//     by offline/lab/detectgen), plus costs for a capital inside a word and a
//     Cyrillic letter next to a Latin one; other Cyrillic letters (і, ї, є,
//     ґ, ў) cost 8 bits, other characters 14;
//   - Western (windows-1252): an accented letter costs 5 bits inside a Latin
//     word, more at a word's start, after another accented letter, or as a
//     capital inside a word, and 10 bits if it is one Western European
//     languages seldom use;
//   - CJK (shift_jis, euc-jp, gbk, big5, euc-kr): each character by whether
//     it is among its language's common ones (detect_cjk.go), kana for
//     Japanese, other characters of the script, or characters of another
//     script.
//
// Typographic punctuation (“ ” « » – — … and the like) costs 6 bits in
// every model, 14 where it is how a single-byte encoding reads another's
// letters: inside a word (but for ’ · – —), № before a letter, or around a
// single ASCII letter or digit („A„p). A letter that is a word on its own
// costs 6 bits more unless the language has such words (в, и, à …). A space
// between two Chinese or Japanese characters costs 16 bits. Other ASCII
// costs nothing, being the same in every reading. A reading with a byte
// its encoding cannot read, or a C1 control character, is no candidate.
// Readings that are the same text (a page whose only non-ASCII bytes are
// quotes and dashes is the same in windows-1252 and windows-1251) count
// once, as the first of them in candidates' order.
//
// The confidence is the winner's share of the readings' likelihoods
// (2^-cost, summed over the distinct readings), times how much its text
// looks like language at all: 1 at up to 7 bits per non-ASCII byte, 0 from
// 10 bits on, linear between — bytes that are no text read as expensive
// text in every encoding.

import (
	"bytes"
	"math"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// detectMax is how much of a value the detector reads: the readings of
// that much already differ by thousands of bits.
const detectMax = 64 << 10

// MinDetectConfidence is the confidence below which a detected encoding is
// not taken and the value is dead-lettered.
const MinDetectConfidence = 0.9

// detection is the detector's answer: the encoding it would read a value
// in, and how sure it is.
type detection struct {
	name       string // WHATWG name; "" when no candidate reads the value
	enc        encoding.Encoding
	confidence float64 // in [0, 1]
}

// confident reports whether the detection is to be taken.
func (d detection) confident() bool {
	return d.enc != nil && d.confidence >= MinDetectConfidence
}

// model is the language model a candidate's reading is scored by.
type model uint8

const (
	modelCyrillic model = iota
	modelWestern
	modelJapanese
	modelKorean
	modelSimplified
	modelTraditional
)

// candidate is an encoding the detector tries.
type candidate struct {
	name  string
	model model
	enc   encoding.Encoding
	// high are the characters of bytes 0x80–0xFF in a single-byte
	// encoding, nil for a multi-byte one. A byte the encoding cannot read,
	// or reads as a C1 control, is utf8.RuneError.
	high *[128]charInfo
}

// charInfo is what the models need to know of a character, worked out
// once per byte of each single-byte candidate.
type charInfo struct {
	r      rune
	cyr    uint8 // Russian letter class of cyrillicBigram, 0 if none
	letter bool
	upper  bool
	latin  bool // a letter of the Latin script
	cyrl   bool // a letter of the Cyrillic script
	digit  bool // an ASCII digit
	punct  bool // isPunct
	common bool // a small letter's commonAccented, the letter's or its small one's
	// word: the letter is a word on its own in the language of the
	// candidate's model (oneLetterWord).
	word bool
}

func infoOf(r rune, m model) charInfo {
	ci := charInfo{r: r, letter: unicode.IsLetter(r), upper: unicode.IsUpper(r), digit: r >= '0' && r <= '9', punct: isPunct(r)}
	ci.latin = ci.letter && unicode.Is(unicode.Latin, r)
	ci.cyrl = ci.letter && unicode.Is(unicode.Cyrillic, r)
	lower := unicode.ToLower(r)
	ci.cyr = russianClass(lower)
	ci.common = commonAccented(lower)
	ci.word = oneLetterWord(m, lower)
	return ci
}

// russianClass is r's class in cyrillicBigram: 1 for а … 33 for я, in the
// alphabet's order (ё after е); 0 for anything else.
func russianClass(r rune) uint8 {
	switch {
	case r == 'ё':
		return 7
	case r >= 'а' && r <= 'е':
		return uint8(r-'а') + 1
	case r > 'е' && r <= 'я':
		return uint8(r-'а') + 2
	}
	return 0
}

// candidates are the encodings tried, in the order that decides between
// readings that are the same text.
var candidates = func() []candidate {
	list := []struct {
		name  string
		model model
	}{
		{"windows-1252", modelWestern},
		{"windows-1251", modelCyrillic},
		{"koi8-r", modelCyrillic},
		{"x-mac-cyrillic", modelCyrillic},
		{"ibm866", modelCyrillic},
		{"iso-8859-5", modelCyrillic},
		{"shift_jis", modelJapanese},
		{"euc-jp", modelJapanese},
		{"gbk", modelSimplified},
		{"big5", modelTraditional},
		{"euc-kr", modelKorean},
	}
	cs := make([]candidate, len(list))
	for i, c := range list {
		r := lookup(c.name, "")
		if r.enc == nil || r.name != c.name {
			panic("prepare: no encoding " + c.name)
		}
		cs[i] = candidate{name: c.name, model: c.model, enc: r.enc}
		if c.model == modelCyrillic || c.model == modelWestern {
			cs[i].high = singleByteTable(r.enc, c.model)
		}
	}
	return cs
}()

func singleByteTable(e encoding.Encoding, m model) *[128]charInfo {
	var t [128]charInfo
	for b := range 128 {
		text, err := e.NewDecoder().Bytes([]byte{byte(0x80 + b)})
		r, n := utf8.DecodeRune(text)
		if err != nil || n != len(text) || r >= 0x80 && r < 0xa0 {
			r = utf8.RuneError
		}
		t[b] = infoOf(r, m)
	}
	return &t
}

// asciiInfo are the ASCII characters' charInfo.
var asciiInfo = func() (t [128]charInfo) {
	for b := range 128 {
		t[b] = infoOf(rune(b), modelWestern)
	}
	return t
}()

// detectCharset finds the encoding of v, which is not valid UTF-8.
func detectCharset(v []byte) detection {
	if len(v) > detectMax {
		v = v[:detectMax]
		// End after a byte below 0x30, which no multi-byte character of the
		// candidates ends in or continues past, so that the last character
		// is whole.
		if i := bytes.LastIndexFunc(v[detectMax-1024:], func(r rune) bool { return r < 0x30 }); i >= 0 {
			v = v[:detectMax-1024+i+1]
		}
	}
	var present [2]uint64 // the non-ASCII bytes v holds
	high := 0
	for _, b := range v {
		if b >= 0x80 {
			present[(b-0x80)>>6] |= 1 << (b & 63)
			high++
		}
	}
	if high == 0 {
		return detection{}
	}
	var costs [16]int
	best := -1
	for i := range candidates {
		c := &candidates[i]
		if c.high != nil {
			costs[i] = singleByteCost(c, v)
		} else {
			costs[i] = multiByteCost(c, v)
		}
		if costs[i] >= 0 && (best < 0 || costs[i] < costs[best]) {
			best = i
		}
	}
	if best < 0 {
		return detection{}
	}
	// The winner's share of the distinct readings' likelihoods.
	sum := 0.0
	for i := range candidates {
		if costs[i] < 0 || i != best && sameText(&candidates[i], &candidates[best], present) {
			continue
		}
		sum += math.Exp2(float64(costs[best]-costs[i]) / 4)
	}
	// A reading that is the same text as the winner's, and as cheap, comes
	// first in candidates' order.
	for i := range best {
		if costs[i] == costs[best] && sameText(&candidates[i], &candidates[best], present) {
			best = i
			break
		}
	}
	bits := float64(costs[best]) / 4 / float64(high)
	text := min(1, max(0, (10-bits)/3))
	return detection{name: candidates[best].name, enc: candidates[best].enc, confidence: text / sum}
}

// sameText reports whether candidates a and b read every non-ASCII byte of
// present as the same character.
func sameText(a, b *candidate, present [2]uint64) bool {
	if a.high == nil || b.high == nil {
		return a == b
	}
	for i := range 128 {
		if present[i>>6]&(1<<(i&63)) != 0 && a.high[i].r != b.high[i].r {
			return false
		}
	}
	return true
}

// Costs in quarter bits.
const (
	costPunct       = 24 // typographic punctuation, in every model
	costOther       = 56 // a character the model has no use for
	costCapInWord   = 36 // a capital after a small letter
	costCapAtStart  = 8  // a capital at a word's start
	costSmallAfterB = 2  // a small letter at a word's start
	costCapAfterCap = 4
	costMixedScript = 40 // a Cyrillic letter next to a Latin one
	costSpaced      = 64 // a space between two Chinese or Japanese characters
	costLoneLetter  = 24 // a one-letter word the language does not have
)

// singleByteCost is the cost of reading v in the single-byte candidate c,
// -1 if it cannot be read.
func singleByteCost(c *candidate, v []byte) int {
	cost := 0
	var prev charInfo
	prevHigh := false
	punctAt := -3 // where the last punctuation was
	for i, b := range v {
		if b < 0x80 {
			cur := asciiInfo[b]
			if c.model == modelCyrillic && cur.letter && prev.cyrl {
				cost += costMixedScript
			}
			prev, prevHigh = cur, false
			continue
		}
		cur := &c.high[b-0x80]
		if cur.r == utf8.RuneError {
			return -1
		}
		var next *charInfo
		switch {
		case i+1 == len(v):
			next = &asciiInfo[' ']
		case v[i+1] < 0x80:
			next = &asciiInfo[v[i+1]]
		default:
			next = &c.high[v[i+1]-0x80]
		}
		switch {
		case cur.punct:
			cost += punctCost(i-punctAt, &prev, cur, next)
			punctAt = i
		case c.model == modelCyrillic:
			cost += cyrillicCost(&prev, cur)
		default:
			cost += westernCost(&prev, prevHigh, cur)
		}
		if cur.letter && !prev.letter && !next.letter && !cur.word {
			cost += costLoneLetter
		}
		prev, prevHigh = *cur, true
	}
	return cost
}

// punctCost is the cost of punctuation cur between prev and next, gap
// bytes after the last punctuation. Punctuation inside a word, or around a
// single ASCII letter or digit („A„p…), is how these encodings read the
// letters of another.
func punctCost(gap int, prev, cur, next *charInfo) int {
	switch {
	case prev.letter && next.letter && cur.r != '’' && cur.r != '·' && cur.r != '—' && cur.r != '–':
		return costOther
	case cur.r == '№' && next.letter:
		return costOther
	case gap == 2 && (prev.letter || prev.digit):
		return costOther
	}
	return costPunct
}

// oneLetterWord reports whether the small letter r is a word on its own in
// the languages of model m.
func oneLetterWord(m model, r rune) bool {
	switch m {
	case modelCyrillic:
		return r == 'а' || r == 'в' || r == 'и' || r == 'к' || r == 'о' || r == 'с' || r == 'у' || r == 'я'
	default:
		return r == 'à' || r == 'è' || r == 'é' || r == 'ó' || r == 'ò'
	}
}

// caseCost is the cost of cur's case after prev.
func caseCost(prev, cur *charInfo) int {
	switch {
	case !cur.letter:
		return 0
	case cur.upper && prev.letter && !prev.upper:
		return costCapInWord
	case cur.upper && prev.letter:
		return costCapAfterCap
	case cur.upper:
		return costCapAtStart
	case !prev.letter:
		return costSmallAfterB
	}
	return 0
}

func cyrillicCost(prev, cur *charInfo) int {
	switch {
	case cur.cyr > 0:
		cost := int(cyrillicBigram[prev.cyr][cur.cyr]) + caseCost(prev, cur)
		if prev.latin {
			cost += costMixedScript
		}
		return cost
	case cur.cyrl:
		cost := 32 + caseCost(prev, cur)
		if prev.latin {
			cost += costMixedScript
		}
		return cost
	}
	return costOther
}

func westernCost(prev *charInfo, prevHigh bool, cur *charInfo) int {
	switch {
	case cur.latin:
		cost := 20
		if !cur.common {
			cost = 40
		}
		switch {
		case prevHigh && prev.letter:
			cost += 16 // two accented letters in a row
		case !prev.letter:
			cost += 8
		}
		return cost + caseCost(prev, cur)
	case cur.r == '£' || cur.r == '°' || cur.r == '½' || cur.r == '¿' || cur.r == '¡' || cur.r == '×' || cur.r == 'µ' || cur.r == '²' || cur.r == 'º' || cur.r == 'ª':
		return 40
	}
	return costOther
}

// commonAccented reports whether the small letter r is one Western European
// languages write often.
func commonAccented(r rune) bool {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'æ', 'ç', 'è', 'é', 'ê', 'ë', 'ì', 'í', 'î', 'ï',
		'ñ', 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ù', 'ú', 'û', 'ü', 'ß', 'œ':
		return true
	}
	return false
}

// isPunct reports whether r is typographic punctuation that every model
// prices the same.
func isPunct(r rune) bool {
	switch r {
	case '\u00a0', '«', '»', '“', '”', '‘', '’', '„', '‚', '–', '—', '…', '•', '·', '©', '®', '™', '°', '№', '€', '§':
		return true
	}
	return false
}

// multiByteCost is the cost of reading v in the multi-byte candidate c, -1
// if it cannot be read. It decodes a chunk at a time, so that a value that
// is not in c — most of them — is given up at its first bad sequence.
func multiByteCost(c *candidate, v []byte) int {
	dec := c.enc.NewDecoder()
	var chunk [256]byte
	cost := 0
	// Chinese and Japanese put no spaces between words: an ideograph or
	// kana, a space, and another is how they read a language that does.
	spaced := c.model != modelKorean
	const (
		afterOther = iota
		afterCJK
		afterCJKSpace
	)
	state := afterOther
	for len(v) > 0 {
		n, read, err := dec.Transform(chunk[:], v, true)
		if err != nil && err != transform.ErrShortDst || read == 0 && n == 0 {
			return -1
		}
		v = v[read:]
		for _, r := range string(chunk[:n]) {
			switch {
			case r == ' ' && state == afterCJK:
				state = afterCJKSpace
				continue
			case r < utf8.RuneSelf:
				state = afterOther
				continue
			case r == utf8.RuneError:
				return -1
			}
			cjk := r >= 0x3041 && r <= 0x30ff || r >= hanziLo && r <= hanziHi
			if cjk && spaced && state == afterCJKSpace {
				cost += costSpaced
			}
			cost += cjkCost(c.model, r)
			state = afterOther
			if cjk {
				state = afterCJK
			}
		}
	}
	return cost
}

// Ranges of the CJK models.
const (
	hanziLo, hanziHi   = 0x4e00, 0x9fff
	hangulLo, hangulHi = 0xac00, 0xd7a3
)

func cjkCost(m model, r rune) int {
	punct := r >= 0x3000 && r <= 0x303f || r >= 0xff01 && r <= 0xff5e || isPunct(r)
	switch m {
	case modelJapanese:
		switch {
		case r >= 0x3041 && r <= 0x309f:
			return 28
		case r >= 0x30a0 && r <= 0x30ff:
			return 36
		case r >= hanziLo && r <= hanziHi && common[r-hanziLo]&commonJa != 0:
			return 40
		case r >= hanziLo && r <= hanziHi:
			return 64
		case punct:
			return 28
		case r >= 0xff61 && r <= 0xff9f: // half-width katakana
			return 52
		}
	case modelKorean:
		switch {
		case r >= hangulLo && r <= hangulHi && commonKo[(r-hangulLo)>>6]&(1<<((r-hangulLo)&63)) != 0:
			return 36
		case r >= hangulLo && r <= hangulHi:
			return 52
		case r >= hanziLo && r <= hanziHi:
			return 64
		case punct:
			return 28
		}
	case modelSimplified, modelTraditional:
		flag := commonHans
		if m == modelTraditional {
			flag = commonHant
		}
		switch {
		case r >= hanziLo && r <= hanziHi && common[r-hanziLo]&flag != 0:
			return 40
		case r >= hanziLo && r <= hanziHi:
			return 60
		case punct:
			return 28
		}
	}
	return 72
}

// Flags of common.
const (
	commonHans uint8 = 1 << iota
	commonHant
	commonJa
)

// common flags the unified ideographs each CJK model counts as common.
var common = func() *[hanziHi - hanziLo + 1]uint8 {
	var t [hanziHi - hanziLo + 1]uint8
	for _, l := range []struct {
		chars string
		flag  uint8
	}{{commonSimplified, commonHans}, {commonTraditional, commonHant}, {commonKanji, commonJa}} {
		for _, r := range l.chars {
			if r >= hanziLo && r <= hanziHi {
				t[r-hanziLo] |= l.flag
			}
		}
	}
	return &t
}()

// commonKo is a bit set of the Hangul syllables the Korean model counts as
// common.
var commonKo = func() *[(hangulHi-hangulLo)/64 + 1]uint64 {
	var t [(hangulHi-hangulLo)/64 + 1]uint64
	for _, r := range commonHangul {
		if r >= hangulLo && r <= hangulHi {
			t[(r-hangulLo)>>6] |= 1 << ((r - hangulLo) & 63)
		}
	}
	return &t
}()
