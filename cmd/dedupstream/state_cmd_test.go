package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateBackupOfRunningFilter takes a backup of a running filter through its
// admin port, switched on by DEDUPSTREAM_ADMIN_BACKUP, restores it into a new
// directory, and reads the stats there.
func TestStateBackupOfRunningFilter(t *testing.T) {
	addr, cfg := testBroker(t, 1, "state-test")
	if err := applyEnv(&cfg, []string{"DEDUPSTREAM_ADMIN_BACKUP=true"}); err != nil || !cfg.Admin.Backup {
		t.Fatalf("DEDUPSTREAM_ADMIN_BACKUP=true: %v, admin.backup %v", err, cfg.Admin.Backup)
	}
	const n = 120
	if err := produce(context.Background(), addr, "pages", metricsInput(n, 0)); err != nil {
		t.Fatal(err)
	}
	a, stop := startFilter(t, cfg)
	waitRecords(t, a, n)
	backup := filepath.Join(t.TempDir(), "state.backup")
	var out, errb bytes.Buffer
	from := "http://" + a.AdminAddr().String()
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
	if s := out.String(); !strings.Contains(s, "documents   120") || !strings.Contains(s, a.Method().Version()) {
		t.Errorf("stats of the restored state:\n%s", s)
	}
	if err := cmdState(context.Background(), []string{"restore", "--in", backup, "--state", restored}, &out, &errb); err == nil {
		t.Error("restore over an existing state succeeded")
	}
}

// TestStateBackupOffByDefault: with admin.backup left off, the admin port
// refuses /debug/state/backup, and state backup --from fails with an error
// that says how to switch it on, leaving no output file behind.
func TestStateBackupOffByDefault(t *testing.T) {
	_, cfg := testBroker(t, 1, "state-off-test")
	if cfg.Admin.Backup {
		t.Fatal("admin.backup is on by default")
	}
	a, stop := startFilter(t, cfg)
	defer closeFilter(t, a)
	defer stop()
	from := "http://" + a.AdminAddr().String()
	resp, err := http.Get(from + "/debug/state/backup")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(body) > 1024 {
		t.Errorf("GET /debug/state/backup with admin.backup off: %s, %d bytes", resp.Status, len(body))
	}
	backup := filepath.Join(t.TempDir(), "state.backup")
	var out, errb bytes.Buffer
	err = cmdState(context.Background(), []string{"backup", "--from", from, "--out", backup}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "403 Forbidden") || !strings.Contains(err.Error(), "admin.backup: true") {
		t.Errorf("state backup --from a filter with admin.backup off: %v", err)
	}
	if _, serr := os.Stat(backup); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("a refused backup left %s behind: %v", backup, serr)
	}
}
