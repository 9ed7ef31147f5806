package main

import (
	"os"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/filter"
)

// process is what the filters of this process take from it: its version,
// its files, its GOMEMLIMIT if set.
func process() filter.Process {
	return filter.Process{Version: version, ReadFile: os.ReadFile, GoMemLimit: os.Getenv("GOMEMLIMIT") != ""}
}

// newFilter builds the filter of cfg in this process (filter.New).
func newFilter(cfg Config, log *zap.Logger, opts ...filter.Option) (*filter.Filter, error) {
	return filter.New(cfg, process(), log, opts...)
}
