package admin

import (
	"errors"
	"fmt"
	"time"
)

// Config is the admin port (/metrics, /livez, /readyz, and
// /debug/state/backup if Backup is set).
type Config struct {
	// Listen is host:port; empty disables the admin server. Its default,
	// DefaultListen, is set before the file, environment and flags are read
	// (EnsureDefaults cannot tell it from "off"), so that an explicitly
	// empty value stays empty.
	Listen string `yaml:"listen"`
	// Backup serves GET /debug/state/backup, a consistent backup of the
	// whole state, to anyone who can reach Listen. Off by default.
	Backup bool `yaml:"backup"`
	// StateInterval is how often dedupstream_state_bytes and the consumer lag
	// are sampled.
	StateInterval time.Duration `yaml:"state_interval"`
	// StallAfter is how long writes may keep failing, or an input partition
	// this instance owns keep records not committed without moving, before
	// /readyz answers 503 with what is stuck.
	StallAfter time.Duration `yaml:"stall_after"`
}

// DefaultListen is admin.listen when nothing sets it.
const DefaultListen = "127.0.0.1:9090"

// EnsureDefaults fills the keys left zero. It leaves Listen alone: empty
// there disables the admin server.
func (c *Config) EnsureDefaults() {
	if c.StateInterval == 0 {
		c.StateInterval = 15 * time.Second
	}
	if c.StallAfter == 0 {
		c.StallAfter = 30 * time.Second
	}
}

// Validate reports the keys out of range.
func (c Config) Validate() error {
	var errs []error
	if c.StallAfter < 0 {
		errs = append(errs, fmt.Errorf("admin.stall_after: must be positive, got %s", c.StallAfter))
	}
	if c.StateInterval < 0 {
		errs = append(errs, fmt.Errorf("admin.state_interval: must be positive, got %s", c.StateInterval))
	}
	return errors.Join(errs...)
}
