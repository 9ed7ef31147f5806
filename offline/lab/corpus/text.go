package corpus

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// cp1252High holds the Windows-1252 characters for bytes 0x80–0x9F in order; NUL marks
// the five bytes Windows-1252 leaves undefined.
const cp1252High = "€\x00‚ƒ„…†‡ˆ‰Š‹Œ\x00Ž\x00\x00‘’“”•–—˜™š›œ\x00žŸ"

// toUTF8 returns b as a string. Valid UTF-8 is kept as it is; anything else is taken to
// be Windows-1252 (a superset of Latin-1's printable range), which is what the 1980s and
// 1990s collections read here use when they are not ASCII.
func toUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/4)
	for _, c := range b {
		switch {
		case c < 0x80:
			sb.WriteByte(c)
		case c >= 0xA0:
			sb.WriteRune(rune(c))
		default:
			if r := cp1252(c); r != 0 {
				sb.WriteRune(r)
			}
		}
	}
	return sb.String()
}

// cp1252 maps a byte in 0x80–0x9F to its Windows-1252 rune, or 0 if it has none.
func cp1252(c byte) rune {
	i := int(c) - 0x80
	for _, r := range cp1252High {
		if i == 0 {
			return r
		}
		i--
	}
	return 0
}

// isJunk reports whether r is a control character that carries no text: every C0 and
// C1 control except tab and newline (carriage returns go too, so CRLF becomes LF).
func isJunk(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7F && r < 0xA0)
}

// cleanText drops control characters (see isJunk) from valid UTF-8 text.
func cleanText(s string) string {
	if strings.IndexFunc(s, isJunk) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isJunk(r) {
			return -1
		}
		return r
	}, s)
}

// unescapeSGML replaces the character references SGML collections use (&lt; &gt; &amp;
// &quot; &apos; &#N; &#xN;). Anything else that starts with '&' is left as it is.
func unescapeSGML(s string) string {
	i := strings.IndexByte(s, '&')
	if i < 0 {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for i >= 0 {
		sb.WriteString(s[:i])
		s = s[i:]
		r, n := sgmlRef(s)
		if n == 0 {
			sb.WriteByte('&')
			n = 1
		} else {
			sb.WriteRune(r)
		}
		s = s[n:]
		i = strings.IndexByte(s, '&')
	}
	sb.WriteString(s)
	return sb.String()
}

// sgmlRef decodes the reference at the start of s (which begins with '&') and returns
// its rune and length, or n == 0 when s does not start with a known reference.
func sgmlRef(s string) (r rune, n int) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 10 {
		return 0, 0
	}
	name := s[1:end]
	switch name {
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "amp":
		return '&', end + 1
	case "quot":
		return '"', end + 1
	case "apos":
		return '\'', end + 1
	}
	if name[0] != '#' {
		return 0, 0
	}
	base, digits := 10, name[1:]
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		base, digits = 16, digits[1:]
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil || !utf8.ValidRune(rune(v)) || v == 0 {
		return utf8.RuneError, end + 1
	}
	return rune(v), end + 1
}

// stripTags removes <...> markup; a closing tag ends the line if it is not ended yet,
// so that adjacent elements (a title and the text after it) do not run together.
func stripTags(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:i])
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return sb.String()
		}
		if strings.HasPrefix(s[i:], "</") && sb.Len() > 0 && !strings.HasSuffix(s[:i], "\n") {
			sb.WriteByte('\n')
		}
		s = s[i+j+1:]
	}
}

// oneLine collapses all runs of white space to single spaces and trims the ends.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
