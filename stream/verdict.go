package stream

import (
	"fmt"
)

// Verdict is the outcome of deciding one record. The zero value is not a verdict.
type Verdict uint8

// Verdicts, in the order DESIGN.md lists them. Their numeric values are stored in
// state, so they must never be renumbered.
const (
	Unique Verdict = iota + 1
	NearDuplicate
	ExactDuplicate
	Contained
	Invalid
)

var verdictNames = [...]string{"", "unique", "near_duplicate", "exact_duplicate", "contained", "invalid"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) && v != 0 {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// Duplicate reports whether the verdict makes the record a copy of an earlier one.
func (v Verdict) Duplicate() bool { return v == NearDuplicate || v == ExactDuplicate || v == Contained }

// Mode says what happens to duplicates.
type Mode uint8

// Modes.
const (
	// ModeTag forwards every valid record with verdict headers.
	ModeTag Mode = iota + 1
	// ModeDrop forwards only unique records; duplicates go to the duplicates topic, if any.
	ModeDrop
)

func (m Mode) String() string {
	switch m {
	case ModeTag:
		return "tag"
	case ModeDrop:
		return "drop"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mode) UnmarshalText(b []byte) error {
	switch string(b) {
	case "tag":
		*m = ModeTag
	case "drop":
		*m = ModeDrop
	default:
		return fmt.Errorf("mode: want tag or drop, got %q", b)
	}
	return nil
}
