package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestOfflineCluster streams generated pages through the filter, then
// re-clusters the stopped state with write-back and a ground truth: the copies
// join their origins (F1 well above what singletons give), and a second run
// prints the same clusters, ids included.
func TestOfflineCluster(t *testing.T) {
	cfg, truthFile := streamGenerated(t, 300, 3, "cluster-test", "")

	args := []string{"cluster", "--state", cfg.State.Dir, "--write-back", "--truth", truthFile, "--top", "3"}
	first := offlineCluster(t, args)
	if !strings.Contains(first, "star: 300 documents") {
		t.Errorf("output:\n%s", first)
	}
	if f1 := parseF1(t, first); f1 < 0.9 {
		t.Errorf("F1 %.3f, want >= 0.9 (mirror, exact and 1%%-edited copies are ~40%% of the pages):\n%s", f1, first)
	}
	if second := offlineCluster(t, args); second[strings.Index(second, "cluster sizes"):] != first[strings.Index(first, "cluster sizes"):] {
		t.Errorf("a second run differs:\n%s\nthen\n%s", first, second)
	}
}

func offlineCluster(t *testing.T, args []string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := cmdOffline(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("offline %v: %v\n%s", args, err, errb.String())
	}
	t.Log(out.String())
	return out.String()
}
