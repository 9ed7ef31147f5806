package clean

import (
	"slices"
	"testing"
)

func TestOptionsDefaults(t *testing.T) {
	var o Options
	o.EnsureDefaults()
	if o.MaxTokens != DefaultMaxTokens || !slices.Equal(o.DropTags, DefaultDropTags()) {
		t.Fatalf("defaults: %+v", o)
	}
	o = Options{MaxTokens: 5, DropTags: []string{}}
	o.EnsureDefaults()
	if o.MaxTokens != 5 || o.DropTags == nil || len(o.DropTags) != 0 {
		t.Fatalf("set values replaced: %+v", o)
	}
	d := DefaultDropTags()
	d[0] = "changed"
	if DefaultDropTags()[0] != "script" {
		t.Fatal("DefaultDropTags shares its slice")
	}
}

func TestOptionsValidate(t *testing.T) {
	f := func(o Options, want string) {
		t.Helper()
		err := o.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Validate(%+v) = %q, want %q", o, got, want)
		}
	}
	f(Options{}, "")
	f(Options{MaxTokens: 10, DropTags: []string{"nav", "H1", "my-widget"}}, "")
	f(Options{MaxTokens: -1}, "clean.max_tokens: must be >= 0, got -1")
	f(Options{DropTags: []string{"nav", ""}}, `clean.drop_tags[1]: must be an element name of ASCII letters, digits and '-', got ""`)
	f(Options{DropTags: []string{"<nav>"}}, `clean.drop_tags[0]: must be an element name of ASCII letters, digits and '-', got "<nav>"`)
	f(Options{DropTags: []string{"1p"}}, `clean.drop_tags[0]: must be an element name of ASCII letters, digits and '-', got "1p"`)
}
