package clean

import (
	"strings"
	"testing"
)

func TestParseLangs(t *testing.T) {
	f := func(in string, want Langs, ok bool) {
		t.Helper()
		got, err := ParseLangs("sketch.stem", in)
		if got != want || (err == nil) != ok {
			t.Errorf("ParseLangs(%q) = %v, %v; want %v, ok %v", in, got, err, want, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "sketch.stem") {
			t.Errorf("error %q does not name the key", err)
		}
		if ok {
			if back, _ := ParseLangs("k", got.String()); back != got {
				t.Errorf("%v.String() = %q parses back as %v", got, got.String(), back)
			}
		}
	}
	f("", 0, true)
	f("none", 0, true)
	f("en", LangEnglish, true)
	f("ru", LangRussian, true)
	f("en+ru", LangEnglish|LangRussian, true)
	f("auto", LangEnglish|LangRussian, true)
	f("de", 0, false)
	f("EN", 0, false)
}
