package admin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// FetchBackup asks the admin port at from (e.g. http://127.0.0.1:9090) for a
// backup of its filter's state. A refusal is an error carrying the filter's
// own explanation (admin.backup off).
func FetchBackup(ctx context.Context, from string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(from, "/")+"/debug/state/backup", nil)
	if err != nil {
		return nil, fmt.Errorf("backup from %s: %w", from, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("backup from %s: %w", from, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, fmt.Errorf("backup from %s: %s: %s", from, resp.Status, bytes.TrimSpace(msg))
	}
	return resp.Body, nil
}
