//go:build !crashpoint

package main

import (
	"io"
	"strings"
	"testing"
)

// TestCrashPointNeedsTag: a binary built without -tags crashpoint refuses the
// fault-injection variable rather than run without the crash it asks for.
func TestCrashPointNeedsTag(t *testing.T) {
	t.Setenv(crashPointEnv, "fetched:1")
	if _, err := crashOption(io.Discard); err == nil || !strings.Contains(err.Error(), "-tags crashpoint") {
		t.Errorf("crashOption with %s set: %v, want an error naming the tag", crashPointEnv, err)
	}
}
