package main

import (
	"flag"
	"io"

	"github.com/dedupstream/dedupstream/offline/progress"
)

// progressFlag adds --progress to fs; the returned func starts a reporter of a
// pass on stderr in the chosen mode (nil, which reports nothing, for "off").
func progressFlag(fs *flag.FlagSet, stderr io.Writer) func(name, unit string, total int64) *progress.Reporter {
	mode := new(progress.Mode)
	fs.Var(mode, "progress", "progress on stderr: auto (a bar on a terminal, log lines otherwise), bar, log or off")
	return func(name, unit string, total int64) *progress.Reporter {
		return progress.New(stderr, name, unit, total, progress.Options{Mode: *mode})
	}
}
