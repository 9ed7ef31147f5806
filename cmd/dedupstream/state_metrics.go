package main

import (
	"runtime"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dedupstream/dedupstream/state"
)

// stateGauges publishes the size of the state, sampled on a ticker (Stats
// lists Badger's tables and the value-log directory: too slow for every
// scrape of a busy filter), and calls also on every tick. Its goroutine runs
// from start until close; every must be positive (admin.state_interval, which
// Config defaults).
type stateGauges struct {
	bytes *prometheus.GaugeVec
	docs  prometheus.Gauge
	stop  chan struct{}
	done  chan struct{}
}

func startStateGauges(reg prometheus.Registerer, stats func() state.Stats, every time.Duration, also func()) *stateGauges {
	g := &stateGauges{
		bytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "dedupstream_state_bytes",
			Help: "Size of the state: Badger's SSTables (lsm) and value log (vlog) on disk, the in-memory key filter (filter).",
		}, []string{"kind"}),
		docs: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dedupstream_state_documents", Help: "Documents stored in the state (approximate).",
		}),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	reg.MustRegister(g.bytes, g.docs)
	g.sample(stats())
	go func() {
		defer close(g.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-g.stop:
				return
			case <-t.C:
				g.sample(stats())
				also()
			}
		}
	}()
	return g
}

func (g *stateGauges) sample(st state.Stats) {
	g.bytes.WithLabelValues("lsm").Set(float64(st.LSMBytes))
	g.bytes.WithLabelValues("vlog").Set(float64(st.VLogBytes))
	g.bytes.WithLabelValues("filter").Set(float64(st.FilterBytes))
	g.docs.Set(float64(st.Docs))
}

// close stops the sampling and waits for it; the store may be closed after.
func (g *stateGauges) close() {
	close(g.stop)
	<-g.done
}

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
