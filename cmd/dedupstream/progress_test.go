package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressFlag: with stderr not a terminal, "offline fim" ends with a log
// line of the itemsets mined; --progress off silences it; a bad mode is a usage
// error.
func TestProgressFlag(t *testing.T) {
	in := filepath.Join(t.TempDir(), "tiny.dat")
	if err := os.WriteFile(in, []byte("1 2 3 4\n1 2 3\n1 2 5\n2 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := func(mode string, wantCode int, wantErr string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := realMain([]string{"offline", "fim", "--input", in, "--min-support", "2", "--progress", mode}, &stdout, &stderr)
		if code != wantCode || !strings.HasPrefix(stderr.String(), wantErr) || (wantErr == "" && stderr.Len() > 0) {
			t.Errorf("--progress %s: exit %d, want %d; stderr %q, want it to start %q", mode, code, wantCode, stderr.String(), wantErr)
		}
	}
	f("auto", 0, "mine: 4 itemsets in ")
	f("log", 0, "mine: 4 itemsets in ")
	f("off", 0, "")
	f("loud", 2, `invalid value "loud" for flag -progress`)
}
