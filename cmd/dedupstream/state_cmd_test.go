package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateBackupOfRunningFilter takes a backup of a running filter through its
// admin port, restores it into a new directory, and reads the stats there.
func TestStateBackupOfRunningFilter(t *testing.T) {
	addr, cfg := testBroker(t, 1, "state-test")
	const n = 120
	if err := produce(context.Background(), addr, "pages", metricsInput(n, 0)); err != nil {
		t.Fatal(err)
	}
	a, stop := startFilter(t, cfg)
	waitRecords(t, a, n)
	backup := filepath.Join(t.TempDir(), "state.backup")
	var out, errb bytes.Buffer
	from := "http://" + a.ln.Addr().String()
	if err := cmdState(context.Background(), []string{"backup", "--from", from, "--out", backup}, &out, &errb); err != nil {
		t.Fatalf("backup while running: %v %s", err, errb.String())
	}
	stop()
	closeFilter(t, a)
	restored := filepath.Join(t.TempDir(), "restored")
	for _, args := range [][]string{{"restore", "--in", backup, "--state", restored}, {"compact", "--state", restored}, {"stats", "--state", restored}} {
		if err := cmdState(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("state %s: %v %s", args[0], err, errb.String())
		}
	}
	if s := out.String(); !strings.Contains(s, "documents   120") || !strings.Contains(s, a.method.Version()) {
		t.Errorf("stats of the restored state:\n%s", s)
	}
	if err := cmdState(context.Background(), []string{"restore", "--in", backup, "--state", restored}, &out, &errb); err == nil {
		t.Error("restore over an existing state succeeded")
	}
}
