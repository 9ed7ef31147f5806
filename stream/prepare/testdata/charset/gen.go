//go:build ignore

// gen writes each golden page of this directory in its legacy encoding:
// NAME-CHARSET.src.EXT, hand-written in UTF-8, becomes NAME-CHARSET.EXT,
// encoded by golang.org/x/text. An encoder refuses a character its charset
// lacks, so a source that does not fit its charset fails here. Run it from
// this directory: go run gen.go
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
)

var encodings = map[string]encoding.Encoding{
	"windows-1251": charmap.Windows1251,
	"koi8-r":       charmap.KOI8R,
	"iso-8859-1":   charmap.ISO8859_1,
	"shift_jis":    japanese.ShiftJIS,
	"utf-16le":     unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), // with its byte-order mark
}

func main() {
	srcs, err := filepath.Glob("*.src.*")
	if err != nil || len(srcs) == 0 {
		fail(fmt.Errorf("no *.src.* files here (%v)", err))
	}
	for _, src := range srcs {
		stem, ext, _ := strings.Cut(src, ".src.")
		cs := stem[strings.Index(stem, "-")+1:]
		enc, ok := encodings[cs]
		if !ok {
			fail(fmt.Errorf("%s: no encoder for %q", src, cs))
		}
		text, err := os.ReadFile(src)
		if err != nil {
			fail(err)
		}
		out, err := enc.NewEncoder().Bytes(text)
		if err != nil {
			fail(fmt.Errorf("%s as %s: %w", src, cs, err))
		}
		if err := os.WriteFile(stem+"."+ext, out, 0o644); err != nil {
			fail(err)
		}
		fmt.Printf("%s -> %s.%s (%s, %d bytes)\n", src, stem, ext, cs, len(out))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
