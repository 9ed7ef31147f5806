package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/dedupstream/dedupstream/offline/lab/gen"
	"github.com/dedupstream/dedupstream/stream/prepare"
)

// pageRecord is one line of a pages JSONL file.
// It is an input record the filter reads (prepare.Input: a plain-text page,
// gen.Plaintext, in body) with the page's labels.
type pageRecord struct {
	prepare.Input
	Origin string `json:"origin"`
	Kind   string `json:"kind"`
}

// Input returns p as the filter's input record. A page without markup
// (gen.Page.Markup) goes in the body field instead of html, so that the
// stream cleans it as text.
func Input(p gen.Page) prepare.Input {
	if !p.Markup() {
		return prepare.Input{ID: p.ID, URL: p.URL, Body: p.HTML}
	}
	return prepare.Input{ID: p.ID, URL: p.URL, HTML: p.HTML}
}

// PageRecord returns the JSON record of p, one line of a pages file: its
// Input with its labels.
func PageRecord(p gen.Page) ([]byte, error) {
	return json.Marshal(pageRecord{Input: Input(p), Origin: p.Origin, Kind: p.Kind.String()})
}

// WritePages writes one JSON record per page: id, url, html (or body), origin, kind.
func WritePages(w io.Writer, pages []gen.Page) error {
	bw := bufio.NewWriter(w)
	for _, p := range pages {
		b, err := PageRecord(p)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadPages reads a file written by WritePages. An unknown kind is an error naming its
// line.
func ReadPages(r io.Reader) ([]gen.Page, error) {
	var pages []gen.Page
	d := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	for n := 1; d.More(); n++ {
		var rec pageRecord
		if err := d.Decode(&rec); err != nil {
			return nil, fmt.Errorf("eval: read pages: record %d: %w", n, err)
		}
		k, ok := gen.ParseKind(rec.Kind)
		if !ok {
			return nil, fmt.Errorf("eval: read pages: record %d: unknown kind %q", n, rec.Kind)
		}
		p := gen.Page{ID: rec.ID, URL: rec.URL, HTML: rec.HTML, Origin: rec.Origin, Kind: k}
		if !p.Markup() {
			p.HTML = rec.Body
		}
		pages = append(pages, p)
	}
	return pages, nil
}
