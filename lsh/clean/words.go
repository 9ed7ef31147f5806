package clean

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
)

// Langs is a set of languages for stop-word removal or stemming. A word's
// language is its script: a word whose first letter is Latin is English, one
// whose first letter is Cyrillic is Russian; other words (digits, Greek, CJK)
// belong to neither and are kept as they are.
type Langs uint8

// The languages a Langs can hold.
const (
	LangEnglish Langs = 1 << iota // Latin-script words: Snowball English (Porter2) and its stop words
	LangRussian                   // Cyrillic-script words: Snowball Russian and its stop words
)

// ParseLangs parses a configuration value: "" or "none" (no language), "en",
// "ru", or "en+ru" (also "auto": each word by its script). key names the
// configuration key in the error.
func ParseLangs(key, s string) (Langs, error) {
	switch s {
	case "", "none":
		return 0, nil
	case "en":
		return LangEnglish, nil
	case "ru":
		return LangRussian, nil
	case "en+ru", "ru+en", "auto":
		return LangEnglish | LangRussian, nil
	}
	return 0, fmt.Errorf("%s: must be none, en, ru, en+ru or auto, got %q", key, s)
}

// String returns the value ParseLangs reads back: "none", "en", "ru" or "en+ru".
func (l Langs) String() string {
	switch l {
	case 0:
		return "none"
	case LangEnglish:
		return "en"
	case LangRussian:
		return "ru"
	}
	return "en+ru"
}

// wordLang returns the language of a word by the script of its first letter
// (0 when it has no Latin or Cyrillic letter before a digit or other letter).
func wordLang(w []byte) Langs {
	for len(w) > 0 {
		c := w[0]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			return LangEnglish
		case c < utf8.RuneSelf:
			if '0' <= c && c <= '9' {
				return 0
			}
			w = w[1:] // punctuation the cleaner kept, such as an apostrophe
			continue
		}
		r, size := utf8.DecodeRune(w)
		switch {
		case unicode.Is(unicode.Cyrillic, r):
			return LangRussian
		case unicode.Is(unicode.Latin, r):
			return LangEnglish
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return 0
		}
		w = w[size:]
	}
	return 0
}

// isStopWord reports whether w is in lang's Snowball stop-word list. The
// lists are switches on string; the conversion does not escape.
func isStopWord(lang Langs, w []byte) bool {
	if lang == LangRussian {
		return russian.IsStopWord(string(w))
	}
	return english.IsStopWord(string(w))
}

// MaxStems bounds a stem cache (AppendFilteredWords' stems): it is cleared
// when it holds this many words.
const MaxStems = 1 << 12

// appendStem appends lang's Snowball stem of w to dst (w itself if the
// stem is empty). Stop words are stemmed too. stems, if not nil, caches
// stems by word: a word's stem depends on the word alone (its script picks
// the language), so one cache serves every caller. Snowball costs about
// a microsecond and a few allocations a word, and a page's words repeat.
func appendStem(dst []byte, lang Langs, w []byte, stems map[string]string) []byte {
	if s, ok := stems[string(w)]; ok {
		return append(dst, s...)
	}
	var s string
	if lang == LangRussian {
		s = russian.Stem(string(w), true)
	} else {
		s = english.Stem(string(w), true)
	}
	if s == "" {
		s = string(w)
	}
	if stems != nil {
		if len(stems) >= MaxStems {
			clear(stems)
		}
		stems[string(w)] = s
	}
	return append(dst, s...)
}

// AppendFilteredWords appends to dst the words of text (single-space
// separated, as the cleaner writes them) without the stop words of stop and
// with the words of stem's languages replaced by their stems, joined by
// single spaces. When every word is a stop word, the words are kept (and
// stemmed): a page of only stop words ("to be or not to be") still has a
// sketch.
func AppendFilteredWords(dst, text []byte, stop, stem Langs, stems map[string]string) []byte {
	base := len(dst)
	dst = appendWordsExcept(dst, text, stop, stem, stems)
	if len(dst) == base && stop != 0 {
		dst = appendWordsExcept(dst, text, 0, stem, stems)
	}
	return dst
}

func appendWordsExcept(dst, text []byte, stop, stem Langs, stems map[string]string) []byte {
	base := len(dst)
	for len(text) > 0 {
		w := text
		if i := bytes.IndexByte(text, ' '); i >= 0 {
			w, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if len(w) == 0 {
			continue
		}
		lang := wordLang(w)
		if lang&stop != 0 && isStopWord(lang, w) {
			continue
		}
		if len(dst) > base {
			dst = append(dst, ' ')
		}
		if lang&stem != 0 {
			dst = appendStem(dst, lang, w, stems)
		} else {
			dst = append(dst, w...)
		}
	}
	return dst
}
