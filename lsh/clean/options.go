package clean

import "fmt"

// DefaultMaxTokens is the word cap used when Options.MaxTokens is zero.
const DefaultMaxTokens = 100000

// Options configures a Cleaner. The zero value is usable after EnsureDefaults.
type Options struct {
	// MaxTokens caps the words kept per document; words past it are dropped
	// and Result.Truncated set. Zero means DefaultMaxTokens.
	MaxTokens int `yaml:"max_tokens"`
	// DropTags lists elements whose whole subtree is skipped. Nil means
	// DefaultDropTags(); an empty non-nil slice drops nothing.
	DropTags []string `yaml:"drop_tags"`
}

// DefaultDropTags returns a fresh copy of the elements skipped by default:
// scripts, styles and page chrome (menus, headers, footers, sidebars, forms).
func DefaultDropTags() []string {
	return []string{
		"script", "style", "noscript", "nav", "header", "footer", "aside",
		"form", "template", "iframe", "svg", "select", "button",
	}
}

// EnsureDefaults replaces zero values with defaults.
func (o *Options) EnsureDefaults() {
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.DropTags == nil {
		o.DropTags = DefaultDropTags()
	}
}

// Validate reports the first invalid field, naming its configuration key.
func (o Options) Validate() error {
	if o.MaxTokens < 0 {
		return fmt.Errorf("clean.max_tokens: must be >= 0, got %d", o.MaxTokens)
	}
	for i, t := range o.DropTags {
		if !isTagName(t) {
			return fmt.Errorf("clean.drop_tags[%d]: must be an element name of ASCII letters, digits and '-', got %q", i, t)
		}
	}
	return nil
}

// isTagName reports whether s is a plausible element name: an ASCII letter
// followed by ASCII letters, digits or hyphens.
func isTagName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
		case i > 0 && (c == '-' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return s != ""
}
