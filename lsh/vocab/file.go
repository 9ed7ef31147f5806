package vocab

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// The vocabulary file is UTF-8 text, one record per line ending in "\n":
//
//	dedupstream vocabulary 1
//	docs <N> tokens <T>
//	<df>\t<cf>\t<word>
//	…
//
// with one line per word, words in ascending byte order, 1 <= df <= N,
// df <= cf, and the cf summing to T (which catches a truncated file). A
// word is any non-empty byte string without tab, newline or carriage
// return. WriteTo writes exactly this form, so writing what was read
// reproduces the file byte for byte.
const vocabMagic = "dedupstream vocabulary 1"

// maxVocabLine bounds one line of a vocabulary file.
const maxVocabLine = 1 << 16

// WriteTo writes v in the vocabulary file format.
func (v *Vocabulary) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	put := func(b []byte) {
		m, _ := bw.Write(b) // a write error is sticky in bufio; Flush reports it
		n += int64(m)
	}
	line := make([]byte, 0, 128)
	line = append(line, vocabMagic+"\ndocs "...)
	line = strconv.AppendInt(line, v.docs, 10)
	line = append(line, " tokens "...)
	line = strconv.AppendInt(line, v.tokens, 10)
	put(append(line, '\n'))
	for _, t := range v.sortedTerms() {
		line = strconv.AppendInt(line[:0], t.df, 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, t.cf, 10)
		line = append(line, '\t')
		line = append(line, t.word...)
		put(append(line, '\n'))
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("write vocabulary: %w", err)
	}
	return n, nil
}

// Read reads a vocabulary file (see WriteTo). Errors name the
// line at fault.
func Read(r io.Reader) (*Vocabulary, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxVocabLine)
	sc.Split(scanLines)
	p := vocabParser{v: &Vocabulary{terms: make(map[uint64]*termStat)}}
	for sc.Scan() {
		p.line++
		if err := p.parse(sc.Bytes()); err != nil {
			return nil, fmt.Errorf("read vocabulary: line %d: %w", p.line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read vocabulary: line %d: %w", p.line+1, err)
	}
	if p.line < 2 {
		return nil, errors.New("read vocabulary: missing header")
	}
	if p.sum != p.v.tokens {
		return nil, fmt.Errorf("read vocabulary: cf sums to %d, header says tokens %d (truncated?)", p.sum, p.v.tokens)
	}
	return p.v.seal(), nil
}

// scanLines splits on "\n" only and refuses a final line without one.
func scanLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return 0, nil, errors.New("last line has no newline")
	}
	return 0, nil, nil
}

type vocabParser struct {
	v    *Vocabulary
	line int
	sum  int64
	prev []byte // previous word
}

func (p *vocabParser) parse(b []byte) error {
	switch p.line {
	case 1:
		if string(b) != vocabMagic {
			return fmt.Errorf("want %q", vocabMagic)
		}
		return nil
	case 2:
		return p.header(b)
	}
	df, rest, err := field(b)
	if err != nil {
		return fmt.Errorf("df: %w", err)
	}
	cf, word, err := field(rest)
	if err != nil {
		return fmt.Errorf("cf: %w", err)
	}
	switch {
	case df < 1 || df > p.v.docs:
		return fmt.Errorf("df %d not in [1, docs %d]", df, p.v.docs)
	case cf < df:
		return fmt.Errorf("cf %d < df %d", cf, df)
	case cf > p.v.tokens-p.sum:
		return fmt.Errorf("cf %d exceeds the tokens left", cf)
	case !validWord(word):
		return fmt.Errorf("word %q is empty or holds a tab or CR", word)
	case p.line > 3 && bytes.Compare(p.prev, word) >= 0:
		return fmt.Errorf("word %q not after %q", word, p.prev)
	}
	fp := xxhash.Sum64(word)
	if p.v.terms[fp] != nil {
		return fmt.Errorf("word %q collides with %q", word, p.v.terms[fp].word)
	}
	p.v.terms[fp] = &termStat{df: df, cf: cf, word: string(word)}
	p.sum += cf
	p.prev = append(p.prev[:0], word...)
	return nil
}

// header parses "docs <N> tokens <T>".
func (p *vocabParser) header(b []byte) error {
	f := bytes.Split(b, []byte(" "))
	if len(f) != 4 || string(f[0]) != "docs" || string(f[2]) != "tokens" {
		return errors.New(`want "docs <N> tokens <T>"`)
	}
	var err error
	if p.v.docs, err = count(f[1]); err != nil {
		return fmt.Errorf("docs: %w", err)
	}
	if p.v.tokens, err = count(f[3]); err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	return nil
}

// field parses a count up to the next tab and returns the rest after it.
func field(b []byte) (int64, []byte, error) {
	i := bytes.IndexByte(b, '\t')
	if i < 0 {
		return 0, nil, errors.New("missing tab")
	}
	n, err := count(b[:i])
	return n, b[i+1:], err
}

// count parses a canonical non-negative decimal: no sign, no leading zeros.
func count(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' || b[0] == '+' || b[0] == '-' {
		return 0, fmt.Errorf("%q is not a canonical count", b)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a count", b)
	}
	return n, nil
}

// ReadFile reads the vocabulary file at path (Read).
func ReadFile(path string) (*Vocabulary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vocabulary: %w", err)
	}
	defer f.Close()
	v, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("vocabulary %s: %w", path, err)
	}
	return v, nil
}
