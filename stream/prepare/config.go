package prepare

import (
	"errors"
	"fmt"
	"strings"
)

// Config says how a message value becomes a page (the configuration key
// decode). Zero values mean defaults; call EnsureDefaults, then Validate.
type Config struct {
	Format  Format        `yaml:"format"`
	Fields  Fields        `yaml:"fields"`
	Charset CharsetConfig `yaml:"charset"`
	// Detect reads a value that is not UTF-8 and names no charset in the
	// encoding detected from its bytes, when the detector is confident of
	// it (detect.go); false dead-letters it (InvalidUTF8). Default true.
	Detect          *bool `yaml:"detect"`
	MaxMessageBytes int   `yaml:"max_message_bytes"`
	// TopicLimit, when positive, is the most a record may weigh (key, value
	// and headers) for the topics written to take it with its verdict
	// headers, and TopicLimitWhy says where that limit comes from. They are
	// set at start from the brokers' limits (stream.SizeWriters), never
	// from the configuration file.
	TopicLimit    int    `yaml:"-"`
	TopicLimitWhy string `yaml:"-"`
}

// CharsetConfig names where a record says which character encoding its page
// is in (see charset.go for the order in which encodings are tried). A nil
// list takes the default; an empty one names none.
type CharsetConfig struct {
	// Headers are Kafka headers, matched case-insensitively, whose value
	// names the charset of the message value: a media type with a charset
	// parameter ("text/html; charset=koi8-r") or a bare label ("koi8-r").
	// The first of them that names one wins. Default: Content-Type.
	Headers []string `yaml:"headers"`
	// Fields are JSON record fields that name it the same way, read only
	// for a record that is not valid UTF-8: the strings of one that is are
	// Unicode already, whatever charset the page was fetched in.
	// Default: charset, content_type.
	Fields []string `yaml:"fields"`
}

// Fields are the JSON field names read from record values.
type Fields struct {
	ID    string `yaml:"id"`
	URL   string `yaml:"url"`
	Title string `yaml:"title"`
	Body  string `yaml:"body"` // plain text
	HTML  string `yaml:"html"` // markup, cleaned as HTML
}

// EnsureDefaults fills zero fields with defaults.
func (d *Config) EnsureDefaults() {
	if d.Format == 0 {
		d.Format = FormatAuto
	}
	setDefault(&d.Fields.ID, "id")
	setDefault(&d.Fields.URL, "url")
	setDefault(&d.Fields.Title, "title")
	setDefault(&d.Fields.Body, "body")
	setDefault(&d.Fields.HTML, "html")
	if d.Charset.Headers == nil {
		d.Charset.Headers = []string{"Content-Type"}
	}
	if d.Charset.Fields == nil {
		d.Charset.Fields = []string{"charset", "content_type"}
	}
	if d.Detect == nil {
		on := true
		d.Detect = &on
	}
	if d.MaxMessageBytes == 0 {
		d.MaxMessageBytes = 1_000_000
	}
}

// detect reports whether decode.detect is on (it is unless set false).
func (d *Config) detect() bool { return d.Detect == nil || *d.Detect }

func setDefault(s *string, v string) {
	if *s == "" {
		*s = v
	}
}

// Validate reports every invalid setting, naming its configuration key.
func (d Config) Validate() error {
	var errs []error
	if d.MaxMessageBytes < 1 {
		errs = append(errs, fmt.Errorf("decode.max_message_bytes: must be positive, got %d", d.MaxMessageBytes))
	}
	errs = append(errs, d.Charset.validate()...)
	return errors.Join(errs...)
}

func (c CharsetConfig) validate() []error {
	var errs []error
	for i, h := range c.Headers {
		if strings.TrimSpace(h) == "" {
			errs = append(errs, fmt.Errorf("decode.charset.headers[%d]: empty header name", i))
		}
	}
	for i, f := range c.Fields {
		if f == "" {
			errs = append(errs, fmt.Errorf("decode.charset.fields[%d]: empty field name", i))
		}
	}
	return errs
}

// Format says how message values are decoded.
type Format uint8

// Formats.
const (
	// FormatAuto treats a value that parses as a JSON object as a record, anything else as the page.
	FormatAuto Format = iota + 1
	// FormatRaw treats every value as the page itself (text or HTML).
	FormatRaw
	// FormatJSON requires every value to be a JSON object.
	FormatJSON
)

func (f Format) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatRaw:
		return "raw"
	case FormatJSON:
		return "json"
	}
	return fmt.Sprintf("format(%d)", uint8(f))
}

// MarshalText implements encoding.TextMarshaler.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (f *Format) UnmarshalText(b []byte) error {
	switch string(b) {
	case "auto":
		*f = FormatAuto
	case "raw":
		*f = FormatRaw
	case "json":
		*f = FormatJSON
	default:
		return fmt.Errorf("decode.format: want auto, raw or json, got %q", b)
	}
	return nil
}

// RecordLimit is the most a record may weigh (key, value and headers): the
// least of MaxMessageBytes and TopicLimit.
func (d Config) RecordLimit() int {
	if d.TopicLimit > 0 {
		return min(d.MaxMessageBytes, d.TopicLimit)
	}
	return d.MaxMessageBytes
}
