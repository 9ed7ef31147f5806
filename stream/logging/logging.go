package logging

import (
	"errors"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Config chooses the log encoding and level.
type Config struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // auto (console on a terminal, else json), json, console
}

// EnsureDefaults fills the keys left empty: info, auto.
func (c *Config) EnsureDefaults() {
	if c.Level == "" {
		c.Level = "info"
	}
	if c.Format == "" {
		c.Format = "auto"
	}
}

// Validate reports the keys out of their sets.
func (c Config) Validate() error {
	var errs []error
	switch c.Format {
	case "auto", "json", "console":
	default:
		errs = append(errs, fmt.Errorf("log.format: want auto, json or console, got %q", c.Format))
	}
	switch c.Level {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level: want debug, info, warn or error, got %q", c.Level))
	}
	return errors.Join(errs...)
}

// New builds a logger writing to w: JSON for machines, console on a terminal.
func New(c Config, w io.Writer) (*zap.Logger, error) {
	level, err := zapcore.ParseLevel(c.Level)
	if err != nil {
		return nil, err
	}
	encCfg := zap.NewProductionEncoderConfig()
	encCfg.EncodeTime = zapcore.ISO8601TimeEncoder
	var enc zapcore.Encoder
	if c.Format == "console" || (c.Format == "auto" && isTerminal(w)) {
		encCfg.EncodeLevel = zapcore.CapitalColorLevelEncoder
		enc = zapcore.NewConsoleEncoder(encCfg)
	} else {
		enc = zapcore.NewJSONEncoder(encCfg)
	}
	core := zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), level)
	return zap.New(core), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
