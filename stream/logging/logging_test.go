package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestConfig(t *testing.T) {
	var c Config
	c.EnsureDefaults()
	if c != (Config{Level: "info", Format: "auto"}) || c.Validate() != nil {
		t.Errorf("defaults: %+v, %v", c, c.Validate())
	}
	err := Config{Level: "loud", Format: "xml"}.Validate()
	if err == nil || !strings.Contains(err.Error(), "log.level") || !strings.Contains(err.Error(), "log.format") {
		t.Errorf("bad level and format: %v", err)
	}
}

func TestNewWritesJSONAtTheLevel(t *testing.T) {
	var b bytes.Buffer
	log, err := New(Config{Level: "warn", Format: "auto"}, &b) // a buffer is no terminal
	if err != nil {
		t.Fatal(err)
	}
	log.Info("dropped")
	log.Warn("kept")
	var line map[string]any
	if err := json.Unmarshal(b.Bytes(), &line); err != nil || line["msg"] != "kept" || line["level"] != "warn" {
		t.Errorf("logged %q (%v), want one JSON line of the warning", b.String(), err)
	}
}

func TestNewConsole(t *testing.T) {
	var b bytes.Buffer
	log, err := New(Config{Level: "debug", Format: "console"}, &b)
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hello")
	if s := b.String(); !strings.Contains(s, "DEBUG") || !strings.Contains(s, "hello") || strings.HasPrefix(s, "{") {
		t.Errorf("console line %q", s)
	}
}
