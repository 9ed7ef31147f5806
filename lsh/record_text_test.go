package lsh

import (
	"reflect"
	"testing"
)

func TestSplitRecordText(t *testing.T) {
	f := func(text string, want [][]string) {
		t.Helper()
		if got := SplitRecordText([]byte(text)); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitRecordText(%q) = %q, want %q", text, got, want)
		}
	}
	f("a title\x1eivanov i\x1fpetrov p\x1e\x1e2001", [][]string{{"a title"}, {"ivanov i", "petrov p"}, nil, {"2001"}})
	f("", [][]string{nil})
	f("x", [][]string{{"x"}})
}
