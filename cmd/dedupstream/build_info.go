package main

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// buildInfo is dedupstream_build_info: the version, VCS revision, Go version
// and sketch parameters as labels of a constant 1.
func buildInfo(sketch string) prometheus.Collector {
	revision := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "dedupstream_build_info", Help: "Build information: version, VCS revision, Go version and sketch parameters.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version(), "sketch": sketch},
	}, func() float64 { return 1 })
}
