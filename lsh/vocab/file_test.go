package vocab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: a file reads as Read reads its contents; a missing or
// malformed file is an error naming the vocabulary.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.tsv"), filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(good, []byte(goldenVocab), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("nonsense\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want, _ := Read(strings.NewReader(goldenVocab))
	if v, err := ReadFile(good); err != nil || v.Digest() != want.Digest() {
		t.Errorf("ReadFile(good) = %v, %v", v, err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.tsv")} {
		if _, err := ReadFile(path); err == nil || !strings.HasPrefix(err.Error(), "vocabulary") {
			t.Errorf("ReadFile(%s): error %v, want one starting with vocabulary", filepath.Base(path), err)
		}
	}
}
