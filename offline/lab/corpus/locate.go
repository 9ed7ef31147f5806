package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

// Locate finds shared/<dir>/<name> in the working directory or the nearest
// directory above it that has one. The real corpora and benchmark files are
// never copied into the repository; they live in a shared/ folder beside the
// clone, and tests and tools find them with Locate.
func Locate(dir, name string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s not found in shared/%s beside the repository (searched up from %s)", name, dir, wd)
		}
	}
}
