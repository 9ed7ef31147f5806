package admin

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// NewRegistry is the registry /metrics serves, holding the Go runtime's and
// the process's collectors and dedupstream_build_info (BuildInfo).
func NewRegistry(version, sketch string) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(BuildInfo(version, sketch))
	return reg
}

// BuildInfo is dedupstream_build_info: the version, VCS revision, Go version
// and sketch parameters as labels of a constant 1.
func BuildInfo(version, sketch string) prometheus.Collector {
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
