package lsh

import "bytes"

// SplitRecordText splits a record text (see RecordMethod) into its fields,
// in configuration order, and each field into its items: the author keys of
// an authors field, the one value of any other, none for a missing field.
// It is for display; RecordMethod.Sketch reads the text without splitting it.
func SplitRecordText(text []byte) [][]string {
	var fields [][]string
	for f := range bytes.SplitSeq(text, []byte{RecordFieldSep}) {
		var items []string
		for it := range bytes.SplitSeq(f, []byte{RecordItemSep}) {
			if len(it) > 0 {
				items = append(items, string(it))
			}
		}
		fields = append(fields, items)
	}
	return fields
}
