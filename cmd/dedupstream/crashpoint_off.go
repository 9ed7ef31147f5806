//go:build !crashpoint

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/dedupstream/dedupstream/stream/filter"
)

// crashOption refuses DEDUPSTREAM_CRASH_POINT: the fault-injection hook is
// compiled only into a binary built with -tags crashpoint (crashpoint.go).
func crashOption(io.Writer) (filter.Option, error) {
	if _, ok := os.LookupEnv(crashPointEnv); ok {
		return nil, fmt.Errorf("%s: this binary has no crash points; build it with -tags crashpoint", crashPointEnv)
	}
	return noOption, nil
}
