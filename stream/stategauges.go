package stream

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dedupstream/dedupstream/state"
)

// StateGauges publishes the size of the state, sampled on a ticker (Stats
// lists Badger's tables and the value-log directory: too slow for every
// scrape of a busy filter), and calls also on every tick (the filter samples
// its consumer lag there, Pipeline.SampleLag). Its goroutine runs from
// StartStateGauges until Close.
type StateGauges struct {
	bytes *prometheus.GaugeVec
	docs  prometheus.Gauge
	stop  chan struct{}
	done  chan struct{}
}

// StartStateGauges registers dedupstream_state_bytes and
// dedupstream_state_documents with reg, sets them from stats, and samples
// again every interval (which must be positive). stats is a Store's Stats,
// or in sharded mode the shard server's.
func StartStateGauges(reg prometheus.Registerer, stats func() state.Stats, every time.Duration, also func()) *StateGauges {
	g := &StateGauges{
		bytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "dedupstream_state_bytes",
			Help: "Size of the state: Badger's SSTables (lsm) and value log (vlog) on disk, and the in-memory postings and replay indexes (index).",
		}, []string{"kind"}),
		docs: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "dedupstream_state_documents", Help: "Documents stored in the state (approximate).",
		}),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	reg.MustRegister(g.bytes, g.docs)
	g.sample(stats())
	go g.run(stats, every, also)
	return g
}

// run samples on every tick until Close.
func (g *StateGauges) run(stats func() state.Stats, every time.Duration, also func()) {
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
}

func (g *StateGauges) sample(st state.Stats) {
	g.bytes.WithLabelValues("lsm").Set(float64(st.LSMBytes))
	g.bytes.WithLabelValues("vlog").Set(float64(st.VLogBytes))
	g.bytes.WithLabelValues("index").Set(float64(st.IndexBytes))
	g.docs.Set(float64(st.Docs))
}

// Close stops the sampling and waits for it; what stats and also read may
// be closed after.
func (g *StateGauges) Close() {
	close(g.stop)
	<-g.done
}
