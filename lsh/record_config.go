package lsh

import (
	"fmt"
	"math"
	"slices"
)

// Kinds of record fields, the values of RecordField.Kind.
const (
	KindText    = "text"    // shingled words (or character n-grams)
	KindAuthors = "authors" // an order-insensitive set of normalised author names
	KindYear    = "year"    // a four-digit year, equal or not
	KindExact   = "exact"   // a normalised string (a DOI, an ISBN), equal or not
)

// Limits and defaults of RecordConfig.
const (
	MaxRecordFields         = 16
	DefaultRecordMinFields  = 2
	DefaultRecordNumPerm    = 32
	DefaultRecordWordLength = 3 // words per shingle of a text field
	DefaultRecordCharLength = 4 // runes per n-gram of a text field with chars
)

// RecordConfig switches the filter to structured records (record mode): each
// configured field of a JSON record is normalised and sketched on its own,
// and a pair is a near-duplicate when the weighted mean of the similarities
// of the fields both records have reaches the threshold. The zero value of
// every field means its default; call EnsureDefaults and then Validate.
type RecordConfig struct {
	Enabled bool `yaml:"enabled"`
	// MinFields is the fewest fields two records must both have for them to
	// be compared at all; a pair with fewer is never a duplicate. 0 → 2.
	MinFields int `yaml:"min_fields"`
	// NumPerm is the MinHash permutations of each text or authors field;
	// 0 → 32.
	NumPerm int `yaml:"num_perm"`
	// Fields are compared in this order; empty → DefaultRecordFields.
	Fields []RecordField `yaml:"fields"`
}

// RecordField is one field of a record.
type RecordField struct {
	Name string `yaml:"name"` // identifies the field in sketches, state and reports
	// Path is where the decoder finds the field: object keys joined by
	// dots ("meta.title"); "" → Name. lsh itself does not read it.
	Path    string        `yaml:"path"`
	Kind    string        `yaml:"kind"`    // text | authors | year | exact; "" → text
	Weight  float64       `yaml:"weight"`  // share in the weighted similarity; 0 → 1
	Shingle RecordShingle `yaml:"shingle"` // text fields only
}

// RecordShingle is how a text field is shingled.
type RecordShingle struct {
	Length int  `yaml:"length"` // words (runes with chars) per shingle; 0 → 3 words or 4 runes
	Chars  bool `yaml:"chars"`  // character n-grams (spaces included) instead of word windows
}

// shingling is the Shingling of a text field: every window, no rewriting.
func (s RecordShingle) shingling() Shingling {
	return Shingling{Length: s.Length, Offset: 1, Chars: s.Chars}
}

// DefaultRecordFields are the fields of a publication: title (character
// 4-grams, so a typo costs a few n-grams, not whole word windows), authors,
// abstract (word 3-shingles) and year.
func DefaultRecordFields() []RecordField {
	return []RecordField{
		{Name: "title", Path: "title", Kind: KindText, Weight: 3, Shingle: RecordShingle{Length: 4, Chars: true}},
		{Name: "authors", Path: "authors", Kind: KindAuthors, Weight: 3},
		{Name: "abstract", Path: "abstract", Kind: KindText, Weight: 2, Shingle: RecordShingle{Length: 3}},
		{Name: "year", Path: "year", Kind: KindYear, Weight: 1},
	}
}

// EnsureDefaults replaces zero fields with their defaults.
func (c *RecordConfig) EnsureDefaults() {
	if c.MinFields == 0 {
		c.MinFields = DefaultRecordMinFields
	}
	if c.NumPerm == 0 {
		c.NumPerm = DefaultRecordNumPerm
	}
	if len(c.Fields) == 0 {
		c.Fields = DefaultRecordFields()
	}
	for i := range c.Fields {
		c.Fields[i].ensureDefaults()
	}
}

func (f *RecordField) ensureDefaults() {
	if f.Path == "" {
		f.Path = f.Name
	}
	if f.Kind == "" {
		f.Kind = KindText
	}
	if f.Weight == 0 {
		f.Weight = 1
	}
	if f.Kind == KindText && f.Shingle.Length == 0 {
		f.Shingle.Length = DefaultRecordWordLength
		if f.Shingle.Chars {
			f.Shingle.Length = DefaultRecordCharLength
		}
	}
}

// Validate reports the first invalid field, naming its key under "record.".
func (c RecordConfig) Validate() error {
	if len(c.Fields) == 0 || len(c.Fields) > MaxRecordFields {
		return fmt.Errorf("record.fields: want 1 to %d fields, got %d", MaxRecordFields, len(c.Fields))
	}
	var names []string
	for i, f := range c.Fields {
		if err := f.validate(); err != nil {
			return fmt.Errorf("record.fields[%d].%w", i, err)
		}
		if slices.Contains(names, f.Name) {
			return fmt.Errorf("record.fields[%d].name: %q is used twice", i, f.Name)
		}
		names = append(names, f.Name)
	}
	switch {
	case c.MinFields < 1 || c.MinFields > len(c.Fields):
		return fmt.Errorf("record.min_fields: must be in [1, %d fields], got %d", len(c.Fields), c.MinFields)
	case c.NumPerm < 1 || c.NumPerm > MaxNumPerm:
		return fmt.Errorf("record.num_perm: must be in [1, %d], got %d", MaxNumPerm, c.NumPerm)
	}
	return nil
}

func (f RecordField) validate() error {
	switch {
	case f.Name == "":
		return fmt.Errorf("name: must not be empty")
	case f.Kind != KindText && f.Kind != KindAuthors && f.Kind != KindYear && f.Kind != KindExact:
		return fmt.Errorf("kind: want text, authors, year or exact, got %q", f.Kind)
	case !(f.Weight > 0) || math.IsInf(f.Weight, 1):
		return fmt.Errorf("weight: must be a finite number > 0, got %g", f.Weight)
	case f.Kind != KindText && f.Shingle != RecordShingle{}:
		return fmt.Errorf("shingle: only text fields are shingled (kind %s)", f.Kind)
	case f.Kind == KindText && (f.Shingle.Length < 1 || f.Shingle.Length > MaxShingle):
		return fmt.Errorf("shingle.length: must be in [1, %d], got %d", MaxShingle, f.Shingle.Length)
	}
	return nil
}

// hashed reports whether the field is kept as a MinHash signature (text,
// authors) rather than one fingerprint (year, exact).
func (f RecordField) hashed() bool { return f.Kind == KindText || f.Kind == KindAuthors }

// indexed reports whether the field gives index keys. A year alone would
// make every record of that year a candidate of every other.
func (f RecordField) indexed() bool { return f.Kind != KindYear }
