package quality

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Format is the layout of a ground-truth file.
type Format int

// Formats of a ground-truth file. The zero Format detects the layout.
const (
	// FormatAuto reads FormatLabels when every line is exactly two tab-separated fields
	// and some cluster name (second field) occurs on more than one line or equals its
	// line's id (as when each original names its own cluster), and FormatLines
	// otherwise. A file of id<TAB>cluster lines with every cluster name distinct and
	// unlike the ids (all singletons) therefore reads as a file of pairs: pass
	// FormatLabels for it.
	FormatAuto Format = iota
	// FormatLines has one cluster per line, its ids separated by spaces or tabs.
	FormatLines
	// FormatLabels has one document per line: its id, a tab, and the name of its cluster.
	FormatLabels
)

// ReadClustering reads a ground-truth clustering. Blank lines are skipped and
// surrounding whitespace is trimmed. An id listed twice is an error, and
// every error names its line. The whole input is held in memory while reading, and the
// ids keep referring to it.
func ReadClustering(r io.Reader, f Format) (*Clustering, error) {
	var sb strings.Builder
	if _, err := io.Copy(&sb, r); err != nil {
		return nil, fmt.Errorf("quality: read clustering: %w", err)
	}
	text := sb.String()
	if f == FormatAuto {
		f = detect(text)
	}
	lines := strings.Count(text, "\n") + 1 // documents, for FormatLabels; at least clusters
	p := parser{b: newBuilder(lines), line: make([]int32, 0, lines)}
	var err error
	switch f {
	case FormatLines:
		err = p.lines(text)
	case FormatLabels:
		err = p.labels(text)
	default:
		err = fmt.Errorf("unknown format %d", f)
	}
	if err != nil {
		return nil, fmt.Errorf("quality: read clustering: %w", err)
	}
	return p.b.c, nil
}

// eachLine calls f with every non-blank line, trimmed, and its 1-based number, stopping
// at the first error.
func eachLine(text string, f func(line string, no int) error) error {
	no := 0
	for line := range strings.Lines(text) {
		no++
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := f(line, no); err != nil {
			return err
		}
	}
	return nil
}

// errDetected stops detection early.
var errDetected = errors.New("detected")

func detect(text string) Format {
	names := make(map[string]struct{})
	repeated := false
	err := eachLine(text, func(line string, _ int) error {
		id, name, ok := strings.Cut(line, "\t")
		if !ok || id == "" || name == "" || strings.ContainsAny(name, "\t ") || strings.ContainsRune(id, ' ') {
			return errDetected // not id<TAB>cluster
		}
		if !repeated {
			_, repeated = names[name]
			repeated = repeated || id == name
			names[name] = struct{}{}
		}
		return nil
	})
	if err == nil && repeated {
		return FormatLabels
	}
	return FormatLines
}

// parser builds a Clustering and remembers the line of each document for errors.
type parser struct {
	b    builder
	line []int32
}

func (p *parser) add(id string, label int32, no int) error {
	if err := p.b.add(id, label); err != nil {
		return p.lineError(err, id, no)
	}
	p.line = append(p.line, int32(no))
	return nil
}

func (p *parser) lineError(err error, id string, no int) error {
	var rep errRepeated
	if errors.As(err, &rep) {
		return fmt.Errorf("line %d: id %q already on line %d", no, id, p.line[rep.prev])
	}
	return fmt.Errorf("line %d: %w", no, err)
}

func (p *parser) lines(text string) error {
	return eachLine(text, func(line string, no int) error {
		l := p.b.newCluster()
		for id := range strings.FieldsSeq(line) {
			if err := p.add(id, l, no); err != nil {
				return err
			}
		}
		return nil
	})
}

func (p *parser) labels(text string) error {
	names := make(map[string]int32)
	return eachLine(text, func(line string, no int) error {
		id, name, ok := strings.Cut(line, "\t")
		id, name = strings.TrimSpace(id), strings.TrimSpace(name)
		if !ok || id == "" || name == "" || strings.Contains(name, "\t") {
			return fmt.Errorf("line %d: want id<TAB>cluster, got %q", no, line)
		}
		l, ok := names[name]
		if !ok {
			l = p.b.newCluster()
			names[name] = l
		}
		return p.add(id, l, no)
	})
}
