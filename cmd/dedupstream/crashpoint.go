//go:build crashpoint

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/dedupstream/dedupstream/stream"
	"github.com/dedupstream/dedupstream/stream/crashpoint"
	"github.com/dedupstream/dedupstream/stream/filter"
)

// crashOption is the crash point DEDUPSTREAM_CRASH_POINT sets, if it is set,
// as an option of the pipeline's deps (crashpoint.Parse).
func crashOption(stderr io.Writer) (filter.Option, error) {
	v, ok := os.LookupEnv(crashPointEnv)
	if !ok {
		return noOption, nil
	}
	c, err := crashpoint.Parse(v, stderr)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", crashPointEnv, v, err)
	}
	return func(d *stream.Deps) { d.AfterStage = c.AfterStage }, nil
}
