package main

import (
	"os"

	"go.uber.org/zap"

	"github.com/dedupstream/dedupstream/stream/filter"
)

// newFilter builds the filter of cfg (filter.New) as this process runs it: with
// its version, reading its files, under its GOMEMLIMIT if set.
func newFilter(cfg Config, log *zap.Logger, opts ...filter.Option) (*filter.Filter, error) {
	p := filter.Process{Version: version, ReadFile: os.ReadFile, GoMemLimit: os.Getenv("GOMEMLIMIT") != ""}
	return filter.New(cfg, p, log, opts...)
}
