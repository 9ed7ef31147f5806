package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/dedupstream/dedupstream/stream/filter"
)

// Config is the whole configuration file (filter.Config); this command is
// the only place that reads it from files, env and flags.
type Config = filter.Config

// loadConfig reads path (if not empty), then applies DEDUPSTREAM_* environment
// variables; flags are applied by the caller afterwards.
func loadConfig(path string, environ []string) (Config, error) {
	c := filter.NewConfig()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("read config: %w", err)
		}
		if err := decodeYAML(b, &c); err != nil {
			return c, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if err := applyEnv(&c, environ); err != nil {
		return c, err
	}
	return c, nil
}

// decodeYAML decodes strictly: an unknown key is an error that names it.
func decodeYAML(b []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) { // an empty file means defaults
		return err
	}
	return nil
}
