package clean

// Year returns the first run of exactly four ASCII digits in s ("2001" from
// "2001-05-03", "May 2001" or "(2001)"), and false if there is none. A longer
// run of digits ("20010503") is not a year.
func Year(s string) (string, bool) {
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j-i == 4 {
			return s[i:j], true
		}
		i = j
	}
	return "", false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
