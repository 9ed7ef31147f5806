package report

import (
	"slices"
	"testing"
)

// TestParseThresholds: numbers in (0, 1], in the order given, spaces
// allowed; anything else is an error.
func TestParseThresholds(t *testing.T) {
	f := func(in string, want []float64) {
		t.Helper()
		got, err := ParseThresholds(in)
		if want == nil {
			if err == nil {
				t.Errorf("ParseThresholds(%q) = %v, want an error", in, got)
			}
			return
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseThresholds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	f("0.8", []float64{0.8})
	f("0.9, 0.5,1", []float64{0.9, 0.5, 1})
	f("0", nil)
	f("1.1", nil)
	f("0.5,", nil)
	f("x", nil)
}
