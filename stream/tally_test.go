package stream

import (
	"reflect"
	"testing"
)

// TestCountsAdd: Add sums every field of Counts, so a field added later is
// not left out of a demo's total.
func TestCountsAdd(t *testing.T) {
	var a, b Counts
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		va.Field(i).SetInt(int64(i + 1))
		vb.Field(i).SetInt(int64(100 * (i + 1)))
	}
	a.Add(b)
	for i := range va.NumField() {
		if got, want := va.Field(i).Int(), int64(101*(i+1)); got != want {
			t.Errorf("%s: %d, want %d", va.Type().Field(i).Name, got, want)
		}
	}
}
