package prepare

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/dedupstream/dedupstream/lsh"
	"github.com/dedupstream/dedupstream/lsh/clean"
)

// recordMethod is what record mode needs of its Method: the fields to read
// and how many a pair must share. lsh.RecordMethod implements it.
type recordMethod interface {
	lsh.Method
	Fields() []lsh.RecordField
	MinFields() int
}

var _ recordMethod = (*lsh.RecordMethod)(nil)

// jsonRecord reads the configured fields of a record. A missing, null or
// empty field is allowed; a value of the wrong type is WrongFieldType, a year
// with no four-digit year in it InvalidFieldValue, a record with none of
// the fields MissingField.
func (d decoder) jsonRecord(obj map[string]any, rec Record) (Record, *InputError) {
	rec.Fields = make([][]string, len(d.record))
	found := false
	for i, f := range d.record {
		vals, ierr := recordValue(f, lookupPath(obj, f.Path))
		if ierr != nil {
			return Record{}, ierr
		}
		rec.Fields[i] = vals
		found = found || vals != nil
	}
	if !found {
		return Record{}, decodeErr("MissingField", "record has none of the fields %s", fieldPaths(d.record))
	}
	return rec, nil
}

func fieldPaths(fields []lsh.RecordField) string {
	paths := make([]string, len(fields))
	for i, f := range fields {
		paths[i] = f.Path
	}
	return strings.Join(paths, ", ")
}

// lookupPath follows a dotted path of object keys; a missing step is nil.
func lookupPath(obj map[string]any, path string) any {
	var v any = obj
	for step := range strings.SplitSeq(path, ".") {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[step]
	}
	return v
}

// recordValue checks one field's JSON value against its kind; nil means
// missing.
func recordValue(f lsh.RecordField, v any) ([]string, *InputError) {
	if v == nil {
		return nil, nil
	}
	wrong := func(want string) *InputError {
		return decodeErr("WrongFieldType", "field %q (%s): want %s, got %s", f.Path, f.Kind, want, jsonKind(v))
	}
	switch f.Kind {
	case lsh.KindAuthors:
		return authorValues(f, v)
	case lsh.KindYear:
		return yearValue(f, v)
	case lsh.KindExact:
		if n, ok := v.(json.Number); ok {
			return []string{n.String()}, nil
		}
	}
	s, ok := v.(string)
	if !ok {
		if f.Kind == lsh.KindExact {
			return nil, wrong("a string or a number")
		}
		return nil, wrong("a string")
	}
	return nonEmpty(s), nil
}

func nonEmpty(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []string{s}
}

// authorValues reads an array of names, or one string of names separated by
// ";".
func authorValues(f lsh.RecordField, v any) ([]string, *InputError) {
	var names []string
	switch x := v.(type) {
	case string:
		names = strings.Split(x, ";")
	case []any:
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, decodeErr("WrongFieldType", "field %q (authors): element %d: want a string, got %s", f.Path, i, jsonKind(e))
			}
			names = append(names, s)
		}
	default:
		return nil, decodeErr("WrongFieldType", "field %q (authors): want an array of strings or a string, got %s", f.Path, jsonKind(v))
	}
	names = slices.DeleteFunc(names, func(s string) bool { return strings.TrimSpace(s) == "" })
	if len(names) == 0 {
		return nil, nil
	}
	return names, nil
}

// yearValue reads a year from a number (2001) or a string ("2001-05-03",
// "May 2001").
func yearValue(f lsh.RecordField, v any) ([]string, *InputError) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, nil
		}
		s = x
	default:
		return nil, decodeErr("WrongFieldType", "field %q (year): want a number or a string, got %s", f.Path, jsonKind(v))
	}
	y, ok := clean.Year(s)
	if !ok {
		return nil, decodeErr("InvalidFieldValue", "field %q (year): no four-digit year in %q", f.Path, truncate(s, 64))
	}
	return []string{y}, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// recordText appends a decoded record's normalised fields to dst as the
// record text lsh.RecordMethod sketches, and returns it with the number of
// fields that are present after normalisation. Author keys are sorted and
// deduplicated, so the text, and the content hash, do not depend on their
// order.
func recordText(dst []byte, cl *clean.Cleaner, fields []lsh.RecordField, vals [][]string) ([]byte, int) {
	present := 0
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, lsh.RecordFieldSep)
		}
		n := len(dst)
		switch {
		case vals[i] == nil:
		case f.Kind == lsh.KindAuthors:
			dst = appendAuthors(dst, cl, vals[i])
		case f.Kind == lsh.KindYear:
			dst = append(dst, vals[i][0]...)
		default:
			dst, _ = cl.Text(dst, []byte(vals[i][0]))
		}
		if len(dst) > n {
			present++
		}
	}
	return dst, present
}

func appendAuthors(dst []byte, cl *clean.Cleaner, names []string) []byte {
	keys := make([]string, 0, len(names))
	for _, name := range names {
		if k := cl.AuthorKey(nil, []byte(name)); len(k) > 0 {
			keys = append(keys, string(k))
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, lsh.RecordItemSep)
		}
		dst = append(dst, k...)
	}
	return dst
}
