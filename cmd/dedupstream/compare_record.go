package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/explain"
)

// compareRecords is compare in record mode: A and B are files holding one
// JSON record each, or ids or URLs of records in --state; it prints each
// field's similarity and the weighted verdict.
func compareRecords(stdout io.Writer, cfg Config, m *lsh.RecordMethod, a, b string) error {
	prepared := prepareFile(cfg, m)
	record := func(v []byte) (text, sketch []byte, err error) { return prepared(bytes.TrimSpace(v)) }
	docs, err := compareDocs(cfg, m, record, a, b)
	if err != nil {
		return err
	}
	c, err := m.CompareFields(docs[0].Sketch, docs[1].Sketch)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "A: %s\nB: %s\nsketch: %s\n\n", docs[0].Name, docs[1].Name, m.Version())
	explain.WriteRecordComparison(stdout, c, docs, m.MinFields(), cfg.Sketch.Params.Threshold)
	return nil
}
