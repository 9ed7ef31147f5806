package main

import (
	"context"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// cmdConfig prints the effective configuration — defaults, then the file, the
// DEDUPSTREAM_* environment and the flags — as YAML. Secrets (the SASL
// password) print as "[redacted]".
func cmdConfig(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs, load := flagSet("config", stderr)
	cfg, err := parseConfig(fs, load, args)
	if err != nil {
		return err
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("print config: %w", err)
	}
	_, err = stdout.Write(b)
	return err
}
